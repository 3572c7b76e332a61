import AppStore
import Foundation
import Testing

@testable import Storage

/// Notification payloads are stored without their repeated certificate chains and read back as
/// the exact JWS Apple sent.
@Suite struct CompactPayloadTests {
    /// A notification signed over a test chain, with a nested transaction and renewal info.
    static func signedNotification(_ chain: TestChain, uuid: String) throws -> String {
        let transaction = try chain.sign(payload: Data(#"{"transactionId":"\#(uuid)","productId":"pro.monthly"}"#.utf8))
        let renewal = try chain.sign(payload: Data(#"{"autoRenewStatus":1,"productId":"pro.monthly"}"#.utf8))
        let data = #"{"bundleId":"com.example.app","signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)"}"#
        return try chain.sign(
            payload: Data(#"{"notificationType":"DID_RENEW","notificationUUID":"\#(uuid)","data":\#(data)}"#.utf8))
    }

    @Test func storedCompactAndReadBackExactly() throws {
        let directory = try TemporaryDirectory()
        let chains = [try TestChain(name: "One"), try TestChain(name: "Two")]
        var sent: [String: String] = [:]
        do {
            let store = try SQLiteStore(path: directory.databasePath)
            defer { store.close() }
            for index in 0..<40 {
                let uuid = "compact-\(index)"
                var record = makeRecord(uuid)
                record.signedPayload = try Self.signedNotification(chains[index % 2], uuid: uuid)
                sent[uuid] = record.signedPayload
                #expect(try store.store(record) == .stored)
            }
            // A payload that does not compact (its header is short) is kept as it came.
            #expect(try store.store(makeRecord("plain")) == .stored)
            sent["plain"] = makeRecord("plain").signedPayload
        }

        let store = try SQLiteStore(path: directory.databasePath)
        defer { store.close() }
        for (uuid, payload) in sent {
            #expect(try store.notification(uuid: uuid)?.signedPayload == payload, "\(uuid)")
        }
        let listed = try store.notifications(NotificationFilter(limit: 100))
        #expect(listed.count == sent.count)
        #expect(listed.allSatisfy { sent[$0.notificationUUID] == $0.signedPayload })

        // One header per chain, however many notifications; the raw column is empty for compacted rows.
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM jws_headers") == [[.integer(2)]])
        let raw = try rawQuery(
            directory.databasePath,
            "SELECT count(*), sum(length(compact_payload)) FROM notifications WHERE signed_payload = '' AND compact_payload IS NOT NULL"
        )
        #expect(raw.first?.first == .integer(40))
        let sentBytes = sent.filter { $0.key != "plain" }.values.reduce(0) { $0 + $1.utf8.count }
        #expect((raw.first?.last?.integerValue ?? .max) * 3 < sentBytes)
    }

    @Test func aCompactPayloadThatNoLongerExpandsIsReportedCorrupt() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.databasePath)
        defer { store.close() }
        var record = makeRecord("damaged")
        record.signedPayload = try Self.signedNotification(try TestChain(), uuid: "damaged")
        #expect(try store.store(record) == .stored)
        try store.write { transaction in try transaction.execute("DELETE FROM jws_headers") }
        #expect(throws: StoreError.self) { try store.notification(uuid: "damaged") }
    }

    /// The writer skips headers it has committed; caller work that deletes them makes it write them again.
    @Test func headersDeletedByCallerWorkAreWrittenAgain() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.databasePath)
        defer { store.close() }
        let chain = try TestChain()
        var payloads: [String: String] = [:]
        for uuid in ["first", "second"] {
            var record = makeRecord(uuid)
            record.signedPayload = try Self.signedNotification(chain, uuid: uuid)
            payloads[uuid] = record.signedPayload
            #expect(try store.store(record) == .stored)
        }
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM jws_headers") == [[.integer(1)]])
        try store.write { transaction in try transaction.execute("DELETE FROM jws_headers") }
        var record = makeRecord("third")
        record.signedPayload = try Self.signedNotification(chain, uuid: "third")
        #expect(try store.store(record) == .stored)
        #expect(try store.notification(uuid: "third")?.signedPayload == record.signedPayload)
        // The header written again serves the rows stored before the deletion too.
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM jws_headers") == [[.integer(1)]])
        #expect(try store.notification(uuid: "first")?.signedPayload == payloads["first"])
    }
}
