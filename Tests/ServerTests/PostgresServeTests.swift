import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Storage

/// The PostgreSQL cluster `make test` starts (`scripts/with-postgres.sh`); nil without one.
enum TestCluster {
    static let url: PostgresURL? = ProcessInfo.processInfo.environment["REVENUEDOT_TEST_POSTGRES_URL"].flatMap {
        try? PostgresURL($0, environment: [:])
    }
}

/// `revenuedot serve` on PostgreSQL (the cluster `make test` starts), configured as a user would.
@Suite(.enabled(if: TestCluster.url != nil))
struct PostgresServeTests {
    /// A fresh database on the cluster, dropped at the end of `body`.
    static func withDatabase(_ body: (PostgresURL) throws -> Void) throws {
        let cluster = try #require(TestCluster.url)
        let name = "rd_serve_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresDatabases.create(name, on: cluster)
        defer { try? PostgresDatabases.drop(name, on: cluster) }
        try body(cluster.with(database: name))
    }

    @Test func notificationsAreStoredOnceAndAppliedWithThePasswordInAFile() throws {
        try Self.withDatabase { url in
            let passwordFile = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString)").path
            try Data((url.password ?? "").utf8).write(to: URL(fileURLWithPath: passwordFile))
            defer { try? FileManager.default.removeItem(atPath: passwordFile) }
            var withoutPassword = url
            withoutPassword.password = nil
            let fixture = try ServerFixture(
                database: #"{"url": "\#(withoutPassword.description)", "passwordFile": "\#(passwordFile)"}"#)
            let service = try fixture.startService()
            defer { service.shutdown() }
            let connection = try LoopbackConnection(port: service.port)
            let uuid = UUID().uuidString.lowercased()
            let payload = try fixture.signer.notification(uuid: uuid, originalTransactionId: "77")
            let first = try connection.postNotification(payload)
            #expect(first.status == 200)
            #expect(try JSONValue(parsing: first.body)["status"] == .string("stored"))
            let again = try connection.postNotification(payload)
            #expect(again.status == 200)
            #expect(try JSONValue(parsing: again.body)["status"] == .string("duplicate"))

            let store = try Store(postgres: url)
            defer { store.close() }
            let record = try #require(try store.notification(uuid: uuid))
            #expect(record.signedPayload == payload)
            #expect(record.state == .applied)
            #expect(record.originalTransactionId == "77")
        }
    }

    /// A wrong password: one line naming the database, never a password; nothing served.
    @Test func aWrongPasswordIsOneLineWithoutThePassword() throws {
        try Self.withDatabase { url in
            var wrong = url
            wrong.password = "wrong-\(UUID().uuidString)"
            let text = "postgres://\(wrong.user):\(wrong.password ?? "")@\(wrong.host):\(wrong.port)/\(wrong.database)"
            let fixture = try ServerFixture(database: "\"\(text)\"")
            let config = try fixture.config()
            #expect(!"\(config.database)".contains(wrong.password ?? ""))
            let error = #expect(throws: ConfigError.self) { try RevenueDotService(config: config) }
            let line = error.map { "\($0)" } ?? ""
            #expect(line.contains("password authentication failed"), "\(line)")
            #expect(line.contains(url.database))
            #expect(!line.contains(wrong.password ?? ""))
            #expect(!line.contains("\n"))
        }
    }
}
