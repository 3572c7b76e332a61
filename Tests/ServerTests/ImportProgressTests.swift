import Foundation
import Testing

@testable import Server

/// What `revenuedot import` says besides its summary: progress lines (into a file or a pipe, a
/// log, one every 10 s and the last, not one per batch of rows), and the rows Apple does not know.
@Suite("Import's progress and lists")
struct ImportProgressTests {
    @Test func aLogGetsALineNowAndThenAndTheLast() throws {
        let world = try AppleAPIWorld()
        let file = try world.directory.write("subscribers.csv", try ImportTests.subscriptions(world, count: 30))
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        // One row a batch: 31 batches, each of which used to write a line.
        let run = try runCLI(["import", "--config", world.configPath, "--app", "demo", file, "--concurrency", "1"])
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").filter { $0.contains(" ETA ") }
        #expect((2...4).contains(lines.count), "\(lines)")
        #expect(lines.last?.contains("31/31 (100%)") == true, "\(lines)")
    }

    /// The rows Apple knows in no environment asked are listed beside the CSV, in its format; a
    /// new run lists its own.
    @Test func theRowsAppleDoesNotKnowAreListedBesideTheFile() throws {
        let world = try AppleAPIWorld()
        let file = try world.directory.write("subscribers.csv", try ImportTests.subscriptions(world, count: 2))
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        let run = try runCLI(["import", "--config", world.configPath, "--app", "demo", file])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("the 1 not found are listed in \(file).not-found.csv"), "\(run.output)")
        let listed = try String(contentsOfFile: file + ".not-found.csv", encoding: .utf8)
        #expect(listed == "original_transaction_id,app_user_id\n9999999999,ghost\n")
        #expect(try Import.rows(csv: listed) == [Import.Row(originalTransactionId: "9999999999", appUserId: "ghost")])
        // Everything found: no list left from before.
        let found = try world.directory.write("found.csv", "original_transaction_id\n7000000000\n")
        _ = try world.directory.write("found.csv.not-found.csv", "stale")
        #expect(try runCLI(["import", "--config", world.configPath, "--app", "demo", found]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: found + ".not-found.csv"))
    }
}
