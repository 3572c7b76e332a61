import AppStore
import Foundation
import LoopbackClient
import Storage
import Testing

@testable import Server
@testable import Tools

/// `revenuedot check-config`: what `serve` would refuse, refused with serve's line; a summary
/// otherwise; nothing changed either way.
@Suite struct CheckConfigTests {
    @Test func aValidConfigurationIsSummarized() throws {
        let fixture = try ServerFixture()
        let fresh = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(fresh.status == 0, "\(fresh.output)")
        #expect(
            fresh.output.hasPrefix("revenuedot check-config: \(fixture.configPath) is valid (revenuedot 0."), "\(fresh.output)")
        #expect(fresh.output.contains("no schema yet: serve creates it at its first start"))
        #expect(
            fresh.output.contains(
                #"app "demo" (com.example.app; Production, Sandbox): 0 webhook(s), 1 entitlement(s), secret API key set"#))
        #expect(!fresh.output.contains("sk_test_secret"))
        #expect(!FileManager.default.fileExists(atPath: fixture.databasePath), "check-config made the database")

        // With a server running on the database (as before a SIGHUP), the schema is read as it is.
        let service = try fixture.startService()
        defer { service.shutdown() }
        let running = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(running.status == 0, "\(running.output)")
        #expect(running.output.contains(", current"), "\(running.output)")
    }

    @Test func whatServeRefusesIsRefusedWithItsLine() throws {
        let fixture = try ServerFixture()
        let text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        let cases: [(String, String)] = [
            (text.replacingOccurrences(of: "\"listen\": \"127.0.0.1:0\"", with: "\"listen\": \"nowhere\""), "listen"),
            (text.replacingOccurrences(of: "root.pem", with: "missing.pem"), "missing.pem"),
            (text.replacingOccurrences(of: "{", with: "{{", options: [], range: text.range(of: "{")), "not valid JSON"),
            (
                text.replacingOccurrences(
                    of: "\"sqlite:\(fixture.databasePath)\"", with: "\"sqlite:/proc/no-such-dir/revenuedot.sqlite\""),
                "the folder /proc/no-such-dir does not exist"
            ),
        ]
        for (bad, key) in cases {
            let path = try fixture.directory.write("bad.json", bad)
            let result = try runCLI(["check-config", "--config", path])
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.hasPrefix("revenuedot check-config: config \(path)"), "\(result.output)")
            #expect(result.output.contains(key), "\(result.output)")
            #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
        }
        // serve says the same of a folder that is not there (its lock file is the first it makes).
        let missing = #expect(throws: StoreError.self) { try Store(path: "/proc/no-such-dir/revenuedot.sqlite") }
        #expect(
            missing?.message.hasPrefix("the folder /proc/no-such-dir does not exist") == true, "\(String(describing: missing))")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: fixture.configPath)
        let open = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(open.status == 1 && open.output.contains("chmod"), "\(open.output)")
    }

    /// On a database no server holds, check-config reads the file as it stands and leaves no
    /// WAL or shared-memory file beside it; a name a URI would escape (?, #, %) reads too.
    @Test func checkingAStoppedDatabaseLeavesNoFilesBehind() throws {
        let fixture = try ServerFixture()
        try fixture.startService().shutdown()
        let before = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path).sorted()
        #expect(!before.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") }, "\(before)")
        let check = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(check.status == 0 && check.output.contains(", current"), "\(check.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path).sorted() == before)

        let odd = fixture.directory.path("a?b#c%20d.sqlite")
        try FileManager.default.copyItem(atPath: fixture.databasePath, toPath: odd)
        guard case .current = try DatabaseProbe.sqlite(path: odd) else {
            Issue.record("\(odd) did not read as current")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: odd + "-wal"))
    }

    @Test func aDatabaseFromANewerBuildOrNotRevenueDotsIsRefused() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        service.shutdown()
        let bumped = try DeploymentFilesTests.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    + "c.execute(\"INSERT INTO schema_migrations VALUES (9999, 'later')\"); c.commit()", fixture.databasePath,
            ])
        #expect(bumped.0 == 0, "\(bumped.1)")
        let newer = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(newer.status == 1 && newer.output.contains("schema version 9999"), "\(newer.output)")
        #expect(newer.output.contains("database: sqlite:"), "\(newer.output)")
    }

    /// A database file with a second name (a hard link) is refused by both, with serve's line.
    @Test func aDatabaseWithASecondNameIsRefusedByBoth() throws {
        let fixture = try ServerFixture()
        try fixture.startService().shutdown()
        let second = fixture.databasePath + "-second"
        try FileManager.default.linkItem(atPath: fixture.databasePath, toPath: second)
        defer { try? FileManager.default.removeItem(atPath: second) }
        let checked = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(checked.status == 1, "\(checked.output)")
        #expect(checked.output.contains("has 2 names (hard links)"), "\(checked.output)")
        let served = try runCLI(["serve", "--config", fixture.configPath])
        #expect(served.status == 1 && served.output.contains("has 2 names (hard links)"), "\(served.output)")
        try FileManager.default.removeItem(atPath: second)
        #expect(try runCLI(["check-config", "--config", fixture.configPath]).status == 0)
    }

    /// An empty file made ahead (with the service's owner, say) is a new database to both
    /// commands; a file with another program's tables is refused by both and left as it was.
    @Test func anEmptyFileIsNewAndAForeignDatabaseIsRefusedByBoth() throws {
        let fixture = try ServerFixture()
        #expect(FileManager.default.createFile(atPath: fixture.databasePath, contents: nil))
        let empty = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(empty.status == 0 && empty.output.contains("no schema yet: serve creates it"), "\(empty.output)")
        let service = try fixture.startService()
        service.shutdown()
        #expect(try runCLI(["check-config", "--config", fixture.configPath]).output.contains(", current"))

        // What a first start stopped before its first migration leaves: an empty migrations table.
        try FileManager.default.removeItem(atPath: fixture.databasePath)
        let interrupted = try DeploymentFilesTests.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    + "c.execute('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)'); "
                    + "c.commit()", fixture.databasePath,
            ])
        #expect(interrupted.0 == 0, "\(interrupted.1)")
        let resumed = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(resumed.status == 0 && resumed.output.contains("no schema yet"), "\(resumed.output)")
        try fixture.startService().shutdown()

        try FileManager.default.removeItem(atPath: fixture.databasePath)
        try FileManager.default.removeItem(atPath: fixture.databasePath + ".lock")
        let made = try DeploymentFilesTests.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    + "c.execute('CREATE TABLE notes (body TEXT)'); c.commit()", fixture.databasePath,
            ])
        #expect(made.0 == 0, "\(made.1)")
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath))
        let checked = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(checked.status == 1, "\(checked.output)")
        #expect(checked.output.contains("1 table(s) but no RevenueDot schema"), "\(checked.output)")
        #expect(throws: (any Error).self) { try fixture.startService() }
        let served = try runCLI(["serve", "--config", fixture.configPath])
        #expect(served.status == 1 && served.output.contains("no RevenueDot schema"), "\(served.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath)) == before)
        // Nothing made beside it either: no lock file left.
        #expect(!FileManager.default.fileExists(atPath: fixture.databasePath + ".lock"))
    }

    /// A listen address in use is a warning: it is the running server's own when reloading.
    @Test func aListenAddressInUseIsAWarning() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        let path = try fixture.directory.write(
            "taken.json",
            text.replacingOccurrences(of: "\"listen\": \"127.0.0.1:0\"", with: "\"listen\": \"127.0.0.1:\(service.port)\""))
        let result = try runCLI(["check-config", "--config", path])
        #expect(result.status == 0, "\(result.output)")
        #expect(
            result.output.contains("warning: Could not listen on 127.0.0.1:\(service.port): Address already in use"),
            "\(result.output)")
        // The running server holds the database too, as a reload expects; serve would stop on it.
        #expect(
            result.output.contains("warning: another RevenueDot process (serve or replay) holds the database"),
            "\(result.output)")
        service.shutdown()
        let alone = try runCLI(["check-config", "--config", path])
        #expect(!alone.output.contains("holds the database"), "\(alone.output)")
    }

    /// Extra roots beside Production are what a demo does and production must not.
    @Test func extraRootsBesideProductionAreAWarning() throws {
        let fixture = try ServerFixture()
        let result = try runCLI(["check-config", "--config", fixture.configPath])
        #expect(result.status == 0, "\(result.output)")
        #expect(
            result.output.contains(
                "warning: app \"demo\" takes Production notifications signed under 1 root certificate(s) besides Apple's"),
            "\(result.output)")
        // The Sandbox-only app trusts the same test root: nothing to say of it.
        #expect(!result.output.contains("warning: app \"sandbox-only\""), "\(result.output)")
        // The fixture's key is one a caller could guess (`ConfigWarnings`).
        #expect(result.output.contains("warning: app \"demo\": secretApiKey is 14 characters"), "\(result.output)")

        // Apple's own root listed again, as Apple's libraries ask for it, is no extra root.
        let apple = try fixture.directory.write("apple-root.pem", try AppleRootCertificates.appleRootCAG3().pem)
        let text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        let listed = try fixture.directory.write(
            "apple-listed.json",
            text.replacingOccurrences(
                of: #""environments": ["Sandbox", "Production"], "rootCertificates": ["\#(fixture.directory.path("root.pem"))"]"#,
                with: #""environments": ["Sandbox", "Production"], "rootCertificates": ["\#(apple)"]"#))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: listed)
        let plain = try runCLI(["check-config", "--config", listed])
        #expect(plain.status == 0, "\(plain.output)")
        #expect(!plain.output.contains("besides Apple's"), "\(plain.output)")
    }

    @Test func anOlderSchemaIsNamedWithTheMigrationsServeWillApply() throws {
        let config = try ConfigLoader.parse(
            Data(
                #"""
                {"listen": "127.0.0.1:8080", "database": "sqlite:/var/lib/revenuedot/revenuedot.sqlite",
                 "node": {"id": "web-1"}, "apps": [{"id": "a", "bundleId": "com.example.a", "environments": ["Sandbox"]}]}
                """#.utf8), file: "/etc/revenuedot/revenuedot.json")
        let text = CheckConfigCommand.summary(config, schema: .older(version: 12, pending: 3))
        #expect(text.contains("database sqlite:/var/lib/revenuedot/revenuedot.sqlite: schema 12: serve applies 3 migration(s)"))
        #expect(text.contains("listen 127.0.0.1:8080, node web-1"))
    }
}
