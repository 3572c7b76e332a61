import Foundation
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Commands that apply inputs (import, backfill, reconcile) beside a process that has the SQLite
/// database: through the server that has it, found where it said it answers, never through
/// whatever server the configuration's `listen` names.
@Suite("Commands beside the process that has the database")
struct CommandsBesideServerTests {
    /// A server writes where it answers into the database's lock; another command writes its pid only.
    @Test func theLockSaysWhoHasTheDatabase() throws {
        let database = TestDirectory().path("revenuedot.sqlite")
        #expect(DatabaseLock.holder(databasePath: database) == nil)
        let store = try Store(path: database, exclusive: true)
        #expect(DatabaseLock.holder(databasePath: database) == .init(pid: getpid()))
        store.announceServing(at: "127.0.0.1", port: 8123)
        let holder = DatabaseLock.holder(databasePath: database)
        #expect(holder?.pid == getpid())
        #expect(holder?.serving?.host == "127.0.0.1" && holder?.serving?.port == 8123)
        store.close()
        #expect(DatabaseLock.holder(databasePath: database) == nil)
    }

    /// Two servers, each with its own database; a configuration naming the first one's database
    /// and the second one's address (a copy edited halfway): the import goes to the first.
    @Test func theServerOfTheDatabaseIsUsedWhateverListenSays() throws {
        let mine = try AppleAPIWorld()
        let other = try AppleAPIWorld()
        let file = try mine.directory.write("subscribers.csv", try ImportTests.subscriptions(mine, count: 2))
        let first = try RevenueDotService(config: try mine.config(), log: { _ in })
        let second = try RevenueDotService(config: try other.config(), log: { _ in })
        try first.start()
        try second.start()
        defer {
            first.shutdown()
            second.shutdown()
        }
        let misleading = try ImportTests.configBeside(mine, port: second.port)
        let run = try runCLI(["import", "--config", misleading, "--app", "demo", file])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("through the running server at 127.0.0.1:\(first.port)"), "\(run.output)")
        #expect(run.output.contains("2 imported"), "\(run.output)")
        first.shutdown()
        second.shutdown()
        #expect(try ImportTests().outcome(mine).contains("view s:7000000000 user-0"))
        #expect(try ImportTests().outcome(other).isEmpty)
    }

    /// Another command has the database (no server to go through): said so, nothing done.
    @Test func anotherCommandHoldingTheDatabaseIsNoServer() throws {
        let world = try AppleAPIWorld()
        let file = try world.directory.write("subscribers.csv", try ImportTests.subscriptions(world, count: 1))
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        let holder = try Store(path: world.databasePath, exclusive: true)
        defer { holder.close() }
        for command in [["import", file], ["backfill"], ["reconcile"]] {
            let run = try runCLI([command[0], "--config", world.configPath, "--app", "demo"] + command.dropFirst())
            // Not the command line's fault: exit 1, without the usage hint.
            #expect(run.status == 1, "\(run.output)")
            #expect(!run.output.contains("--help shows its usage"), "\(run.output)")
            #expect(
                run.output.contains("is in use by another revenuedot process (pid \(getpid())) that serves no requests"),
                "\(run.output)")
        }
    }

    /// The server refusing the command's key refuses every row and subscription alike: the run
    /// stops at the first (where an import resumes), instead of asking for each and failing it.
    @Test func aKeyTheServerRefusesStopsTheRun() throws {
        let world = try AppleAPIWorld()
        let file = try world.directory.write("subscribers.csv", try ImportTests.subscriptions(world, count: 3))
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        #expect(
            try runCLI(["import", "--config", try ImportTests.configBeside(world, port: 0), "--app", "demo", file]).status == 0)
        let stale = try world.directory.write(
            "stale.json",
            try String(contentsOfFile: try ImportTests.configBeside(world, port: 0), encoding: .utf8)
                .replacingOccurrences(of: "sk_test_secret", with: "sk_test_rotated"))
        _ = chmod(stale, 0o600)
        let imported = try runCLI(["import", "--config", stale, "--app", "demo", file + ".demo.not-found.csv"])
        #expect(imported.status == 1, "\(imported.output)")
        #expect(imported.output.contains("stopped at row 1: 9999999999: the running server answered 401"), "\(imported.output)")
        #expect(imported.output.contains("0 not found, 0 failed"), "\(imported.output)")
        let reconciled = try runCLI(["reconcile", "--config", stale, "--app", "demo"])
        #expect(reconciled.status == 1, "\(reconciled.output)")
        #expect(
            reconciled.output.contains("stopped after 1 of 3: the rest would fail alike (the running server answered 401: "),
            "\(reconciled.output)")
        #expect(reconciled.output.contains("1 subscription checked"), "\(reconciled.output)")
    }
}
