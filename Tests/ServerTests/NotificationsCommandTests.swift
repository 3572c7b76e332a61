import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Storage
@testable import Tools

/// `revenuedot notifications list|show|rejects`, run as the built executable against what a real
/// server stored: one applied notification, one held, one refused.
@Suite("revenuedot notifications")
struct NotificationsCommandTests {
    let fixture: ServerFixture
    let applied = UUID().uuidString.lowercased()
    let held = UUID().uuidString.lowercased()

    init() throws {
        fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signer = fixture.signer
        #expect(try connection.postNotification(signer.notification(uuid: applied, originalTransactionId: "77")).status == 200)
        #expect(
            try connection.postNotification(signer.notification(uuid: held, type: "EXPIRED", bundleId: "com.other")).status
                == 200)
        let forger = SignedNotifications(chain: try TestChain(name: "Forger"))
        #expect(try connection.postNotification(forger.notification()).status == 401)
    }

    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runCLI(["notifications"] + arguments + ["--config", fixture.configPath])
    }

    func lines(_ output: String) throws -> [JSONValue] {
        try output.split(separator: "\n").map { try JSONValue(parsing: Data($0.utf8)) }
    }

    @Test func listJSONGivesOneObjectPerLineWithTheFieldsItPromises() throws {
        let listed = try run(["list", "--json"])
        #expect(listed.status == 0)
        let objects = try lines(listed.output)
        #expect(objects.count == 2)
        // Newest first.
        #expect(objects.map { $0["notificationUUID"] } == [.string(held), .string(applied)])
        let first = try #require(objects.last)
        #expect(first["notificationType"] == .string("DID_RENEW"))
        #expect(first["subtype"] == .null)
        #expect(first["appId"] == .string("demo"))
        #expect(first["environment"] == .string("Sandbox"))
        #expect(first["state"] == .string("applied"))
        #expect(first["originalTransactionId"] == .string("77"))
        let receivedAt = try #require(first["receivedAt"]?.stringValue)
        #expect(receivedAt.hasPrefix("20") && receivedAt.hasSuffix("Z"))
    }

    @Test func listFilters() throws {
        let heldOnly = try lines(try run(["list", "--held", "--json"]).output)
        #expect(heldOnly.map { $0["notificationUUID"] } == [.string(held)])
        #expect(heldOnly.first?["state"] == .string("held"))
        #expect(
            try lines(try run(["list", "--type", "DID_RENEW", "--json"]).output).map { $0["notificationUUID"] } == [
                .string(applied)
            ])
        #expect(
            try lines(try run(["list", "--type", "did_renew", "--json"]).output).map { $0["notificationUUID"] } == [
                .string(applied)
            ], "Apple's types are upper case")
        #expect(try lines(try run(["list", "--app", "sandbox-only", "--json"]).output).isEmpty)
        // An app id nothing configured names, with nothing stored under it: a typo, exit 1.
        let unknown = try run(["list", "--app", "nope"])
        #expect(unknown.status == 1)
        #expect(
            unknown.output == #"revenuedot notifications: no app "nope" is configured, and no notification stored matches"#
                + "\n", "\(unknown.output)")
        #expect(try lines(try run(["list", "--limit", "1", "--json"]).output).count == 1)
        // Pages, newest first: the held one came after the applied one.
        let pages = try [0, 1, 2].map { offset in
            try lines(try run(["list", "--limit", "1", "--offset", "\(offset)", "--json"]).output).map { $0["notificationUUID"] }
        }
        #expect(pages == [[.string(held)], [.string(applied)], []])
        #expect(try run(["list", "--offset", "-1"]).status == 2)
        // A type Apple does not document, with none stored: exit 1.
        let odd = try run(["list", "--type", "nope"])
        #expect(odd.status == 1)
        #expect(odd.output.contains(#""NOPE" is not a notification type Apple documents, and no"#), "\(odd.output)")
        let table = try run(["list"])
        #expect(table.status == 0)
        #expect(table.output.contains(applied) && table.output.contains("DID_RENEW") && table.output.contains("held"))
        #expect(!table.output.contains("REASON"))
        // Held ones say why they wait.
        let heldTable = try run(["list", "--held"]).output.split(separator: "\n")
        #expect(heldTable.first?.hasSuffix("REASON") == true, "\(heldTable)")
        #expect(heldTable.dropFirst().first?.contains("com.other") == true, "\(heldTable)")
    }

    /// Columns fit their widest cell: an app id longer than the header's column is printed whole.
    @Test func listPrintsAppIdsWholeInAlignedColumns() throws {
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        #expect(try connection.postNotification(try fixture.signer.notification(), app: "sandbox-only").status == 200)
        service.shutdown()
        let listed = try run(["list"])
        #expect(listed.status == 0, "\(listed.output)")
        let rows = listed.output.split(separator: "\n").map(String.init)
        let row = try #require(rows.first { $0.contains("sandbox-only") }, "\(listed.output)")
        let header = try #require(rows.first)
        #expect(
            row.range(of: "DID_RENEW")?.lowerBound.utf16Offset(in: row)
                == header.range(of: "TYPE")?.lowerBound.utf16Offset(in: header))
    }

    @Test func aLimitOverTheLargestPageIsAUsageError() throws {
        let refused = try run(["list", "--limit", "100000"])
        #expect(refused.status == 2)
        #expect(refused.output.contains("--limit is at most 1000, got 100000"))
        #expect(try run(["list", "--limit", "0"]).status == 2)
        let huge = try run(["list", "--limit", "99999999999999999999999"])
        #expect(huge.status == 2 && huge.output.contains("--limit is at most 1000, got 99999999999999999999999"))
    }

    /// An option the subcommand would ignore is refused, not silently dropped.
    @Test(arguments: [
        (["rejects", "--held"], "rejects does not use --held"), (["rejects", "--limit", "5"], "rejects does not use --limit"),
        (["show", "x", "--limit", "5"], "show does not use --limit"), (["show", "x", "--json"], "show does not use --json"),
    ])
    func anOptionTheSubcommandIgnoresIsRefused(arguments: [String], message: String) throws {
        let refused = try run(arguments)
        #expect(refused.status == 2, "\(refused.output)")
        #expect(refused.output.hasPrefix("revenuedot notifications: \(message)\n"), "\(refused.output)")
    }

    @Test func showDecodesThePayloadAndItsNestedJWS() throws {
        let shown = try run(["show", applied])
        #expect(shown.status == 0)
        let object = try JSONValue(parsing: Data(shown.output.utf8))
        #expect(object["signatureVerified"] == .bool(true))
        #expect(object["state"] == .string("applied"))
        let data = try #require(object["payload"]?["data"])
        #expect(data["transactionInfo"]?["originalTransactionId"] == .string("77"))
        #expect(data["transactionInfo"]?["productId"] == .string("pro.monthly"))
        #expect(data["renewalInfo"]?["originalTransactionId"] == .string("77"))
        // The same notification, its UUID given in upper case.
        let upper = try run(["show", applied.uppercased()])
        #expect(upper.status == 0)
        #expect(try JSONValue(parsing: Data(upper.output.utf8))["notificationUUID"] == .string(applied))
    }

    /// A notification whose signature no longer verifies (its root left the configuration) is
    /// still shown decoded, nested JWS included, marked unverified with the reason.
    @Test func showDecodesAPayloadThatNoLongerVerifies() throws {
        let text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        let withoutRoot = text.replacingOccurrences(
            of: #", "rootCertificates": \["[^"]*"\]"#, with: "", options: .regularExpression)
        #expect(withoutRoot != text)
        let path = try fixture.directory.write("without-root.json", withoutRoot)
        let shown = try runCLI(["notifications", "show", applied, "--config", path])
        #expect(shown.status == 0)
        let object = try JSONValue(parsing: Data(shown.output.utf8))
        #expect(object["signatureVerified"] == .bool(false))
        #expect(object["verificationError"] != nil)
        let data = try #require(object["payload"]?["data"])
        #expect(data["transactionInfo"]?["originalTransactionId"] == .string("77"))
        #expect(data["renewalInfo"]?["originalTransactionId"] == .string("77"))
        #expect(data["signedTransactionInfo"] == nil)
    }

    /// An unsigned (Xcode) notification is stored as `xcode:<uuid>`; `show` finds it by the UUID
    /// in its payload too.
    @Test func showFindsAnUnsignedNotificationByItsPayloadsUUID() throws {
        let root = try fixture.directory.write("xcode-root.pem", fixture.signer.chain.root.pem)
        let path = try fixture.directory.write(
            "xcode.json",
            """
            {"listen": "127.0.0.1:0", "database": "sqlite:\(fixture.databasePath)",
             "apps": [{"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234,
                       "environments": ["Sandbox", "Xcode"], "rootCertificates": ["\(root)"]}]}
            """)
        let uuid = UUID().uuidString.lowercased()
        let xcode = try SignedNotifications(chain: try TestChain(name: "Xcode")).notification(uuid: uuid, environment: "Xcode")
        let store = try Store(path: fixture.databasePath)
        let ingest = Ingest(
            verifiers: try AppVerifiers.forApps(of: try ConfigLoader.load(path: path)), store: store, metrics: Metrics())
        #expect(ingest.receive(appId: "demo", body: SignedNotifications.body(xcode)) == .stored(uuid: "xcode:\(uuid)"))
        store.close()
        for given in [uuid, uuid.uppercased(), "xcode:\(uuid)"] {
            let shown = try runCLI(["notifications", "show", given, "--config", path])
            #expect(shown.status == 0, "\(given)")
            #expect(try JSONValue(parsing: Data(shown.output.utf8))["notificationUUID"] == .string("xcode:\(uuid)"))
        }
        // Anyone's text: terminal escapes in its type or UUID are listed escaped.
        let forged = try SignedNotifications(chain: try TestChain(name: "Xcode")).notification(
            uuid: "x\u{1B}[2Jy", type: "EVIL\u{1B}]0;title\u{7}", environment: "Xcode")
        let again = try Store(path: fixture.databasePath)
        let forging = Ingest(
            verifiers: try AppVerifiers.forApps(of: try ConfigLoader.load(path: path)), store: again, metrics: Metrics())
        _ = forging.receive(appId: "demo", body: SignedNotifications.body(forged))
        again.close()
        let listed = try runCLI(["notifications", "list", "--config", path]).output
        #expect(!listed.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(listed)")
        #expect(listed.contains(#"EVIL\u{1B}]0;title\u{7}"#) && listed.contains(#"xcode:x\u{1B}[2jy"#), "\(listed)")
    }

    @Test func showOfAnUnknownUUIDFails() throws {
        let missing = try run(["show", "00000000-0000-0000-0000-000000000000"])
        #expect(missing.status == 1)
        #expect(missing.output.contains("no notification 00000000-0000-0000-0000-000000000000"))
        #expect(try run(["show"]).status == 2)
    }

    @Test func rejectsCountsByStatusAndKeepsTheReason() throws {
        let text = try run(["rejects"])
        #expect(text.status == 0)
        #expect(text.output.contains("verificationFailure"))
        let json = try JSONValue(parsing: Data(try run(["rejects", "--json"]).output.utf8))
        #expect(json["counts"]?["verificationFailure"] == .integer(1))
        guard case .array(let recent) = json["recent"] else {
            Issue.record("no recent rejects")
            return
        }
        #expect(recent.count == 1)
        #expect(recent.first?["appId"] == .string("demo"))
        #expect(recent.first?["status"] == .string("verificationFailure"))
        #expect(recent.first?["reason"]?.stringValue?.isEmpty == false)
    }

    /// A reason quotes what the sender sent: the text output escapes its control characters, so
    /// a forged header cannot run terminal escapes or add lines (JSON escapes them anyway).
    @Test func rejectsShowsSentControlCharactersEscaped() throws {
        let service = try fixture.startService()
        let header = Data(#"{"alg":"ES256\n\u001b[31mred\u0000","x5c":["AAAA"]}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        let status = try LoopbackConnection(port: service.port).postNotification("\(header).e30.c2ln").status
        service.shutdown()
        #expect(status == 401)
        let text = try run(["rejects"]).output
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        // The NUL was stored as U+FFFD (PostgreSQL text holds none).
        #expect(text.contains(#"\u{A}\u{1B}[31mred"# + "\u{FFFD}"))
        #expect(text.split(separator: "\n").allSatisfy { !$0.hasPrefix("[31m") && !$0.hasPrefix("red") })
        #expect("tab\there\u{85}".escapingControls == #"tab\u{9}here\u{85}"#)
        #expect("plain ☕".escapingControls == "plain ☕")
    }

    /// `--config` is accepted by every command, also by those that read no configuration.
    @Test func everyCommandTakesConfig() throws {
        let explained = try runCLI(["explain", "DID_RENEW", "--config", fixture.configPath])
        #expect(explained.status == 0)
        #expect(explained.output.contains("DID_RENEW"))
        let docs = fixture.directory.path("docs")
        #expect(try runCLI(["docs", "--out", docs, "--config", fixture.configPath]).status == 0)
        #expect(FileManager.default.fileExists(atPath: docs + "/README.md"))
    }

    /// The commands that only read open the database read-only: they work beside the running
    /// server, and a database at an older schema is refused with what to do, not migrated.
    @Test func readingCommandsDoNotMigrate() throws {
        let service = try fixture.startService()
        let beside = try run(["list", "--json"])
        service.shutdown()
        #expect(beside.status == 0, "\(beside.output)")
        #expect(try lines(beside.output).count == 2)

        let older = "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)"
        try SQLiteConnection(path: fixture.databasePath, role: .writer).execute(script: older)
        let versions = try SQLiteConnection(path: fixture.databasePath, role: .reader).query(
            "SELECT version FROM schema_migrations ORDER BY version")
        for command in [["list"], ["show", applied], ["rejects"]] {
            let refused = try run(command)
            #expect(refused.status != 0)
            #expect(refused.output.contains("older than this build's"), "\(refused.output)")
            #expect(refused.output.contains("start revenuedot serve"))
        }
        let events = try runCLI(["events", "list", "--config", fixture.configPath])
        #expect(events.status != 0)
        #expect(events.output.contains("older than this build's"))
        #expect(
            try SQLiteConnection(path: fixture.databasePath, role: .reader).query(
                "SELECT version FROM schema_migrations ORDER BY version") == versions)
    }
}
