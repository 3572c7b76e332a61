import AppStore
import Foundation
import Testing

@testable import Storage

/// Migration 24 turns the payloads of older databases (kept whole, or compact with their headers
/// in `jws_headers` and their nested payloads in the snapshot columns) into zstd frames.
@Suite struct PayloadMigrationTests {
    /// A database at version 23 holding `count` notifications: every third kept whole, the others
    /// compact, their headers in `jws_headers`, half of them referring to their snapshot columns.
    static func legacyDatabase(_ count: Int) throws -> (TemporaryDirectory, [String: String]) {
        let (directory, connection) = try MigrationTests.database(before: 24, holding: "")
        let chain = try TestChain()
        var sent: [String: String] = [:]
        for index in 0..<count {
            let uuid = "old-\(index)"
            let jws = try StoredPayloadTests.signedNotification(chain, uuid: uuid)
            sent[uuid] = jws
            let transactionJSON = #"{"transactionId":"\#(uuid)","productId":"pro.monthly"}"#
            let renewalJSON = #"{"autoRenewStatus":1,"productId":"pro.monthly"}"#
            let externals = index % 2 == 0 ? [Data(transactionJSON.utf8), Data(renewalJSON.utf8)] : []
            let compact = index % 3 == 0 ? nil : JWSCompaction.compact(jws, externals: externals)
            for (sha256, header) in compact?.headers ?? [:] {
                try connection.run(
                    "INSERT INTO jws_headers (sha256, header) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    [.text(sha256), .text(header)])
            }
            try connection.run(
                """
                INSERT INTO notifications (notification_uuid, app_id, notification_type, received_at, state, signed_payload,
                    transaction_id, transaction_json, renewal_json, compact_payload)
                VALUES (?, 'demo', 'DID_RENEW', 1, 'received', ?, ?, ?, ?, ?)
                """,
                [
                    .text(uuid), .text(compact == nil ? jws : ""), .text(uuid), .text(transactionJSON), .text(renewalJSON),
                    compact.map { .blob($0.body) } ?? .null,
                ])
        }
        #expect(
            try connection.query("SELECT count(*) FROM notifications WHERE compact_payload IS NOT NULL").first?.first
                == .integer(Int64(count - (count + 2) / 3)))
        return (directory, sent)
    }

    @Test(arguments: [40, 5])
    func everyPayloadReadsBackExactlyAfterTheMigration(count: Int) throws {
        let (directory, sent) = try Self.legacyDatabase(count)
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        for (uuid, payload) in sent {
            #expect(try store.notification(uuid: uuid)?.signedPayload == payload, "\(uuid)")
        }
        let tables = try rawQuery(directory.databasePath, "SELECT name FROM sqlite_schema WHERE name = 'jws_headers'")
        #expect(tables.isEmpty)
        let dictionaries = try rawQuery(directory.databasePath, "SELECT samples FROM payload_dictionaries")
        let rows = try rawQuery(directory.databasePath, "SELECT DISTINCT payload_dictionary FROM notifications")
        if count >= ZstdPayloadConversion.minimumSamples {
            // Trained on the rows themselves, and every row compressed with it.
            #expect(dictionaries == [[.integer(Int64(count))]])
            #expect(rows == [[.integer(1)]])
            let bytes = try rawQuery(directory.databasePath, "SELECT max(length(payload)) FROM notifications")
            let raw = Int64(sent.values.map(\.utf8.count).min() ?? 0)
            #expect((bytes.first?.first?.integerValue ?? .max) * 8 < raw)
        } else {
            #expect(dictionaries.isEmpty)
            #expect(rows == [[.null]])
        }
    }

    /// A compact payload whose header is gone cannot be converted: the migration stops, and the
    /// database stays at version 23, untouched.
    @Test func aPayloadThatDoesNotExpandStopsTheMigration() throws {
        let (directory, _) = try Self.legacyDatabase(4)
        try rawExecute(directory.databasePath, "DELETE FROM jws_headers")
        let error = #expect(throws: StoreError.self) { try Store(path: directory.databasePath) }
        #expect(error?.message.contains("migration 24") == true)
        #expect(try rawQuery(directory.databasePath, "SELECT max(version) FROM schema_migrations") == [[.integer(23)]])
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM jws_headers") == [[.integer(0)]])
    }
}
