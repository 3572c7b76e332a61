import AppStore
import Crypto
import Foundation
import Testing

@testable import Storage

/// A stored payload leaves out its nested transaction and renewal info payloads where they encode
/// exactly the snapshots stored beside them (migration 16), and is read back as the exact JWS.
@Suite struct ExternalSnapshotsTests {
    static let transactionJSON = #"{"transactionId":"t-1","productId":"pro.monthly","expiresDate":1798814901584}"#
    static let renewalJSON = #"{"autoRenewStatus":1,"productId":"pro.monthly"}"#

    /// A notification whose nested payloads are `transaction` and `renewal`, and its record.
    static func record(_ uuid: String, chain: TestChain, transaction: String, renewal: String) throws -> NotificationRecord {
        let signedTransaction = try chain.sign(payload: Data(transactionJSON.utf8))
        let signedRenewal = try chain.sign(payload: Data(renewalJSON.utf8))
        let data = #"{"signedTransactionInfo":"\#(signedTransaction)","signedRenewalInfo":"\#(signedRenewal)"}"#
        var record = makeRecord(uuid)
        record.signedPayload = try chain.sign(
            payload: Data(#"{"notificationType":"DID_RENEW","notificationUUID":"\#(uuid)","data":\#(data)}"#.utf8))
        record.transactionId = "t-1"
        record.transaction = TransactionSnapshot(transactionId: "t-1", json: transaction)
        record.renewalInfo = RenewalSnapshot(json: renewal)
        return record
    }

    /// The compact payload of `uuid` as stored.
    static func storedBody(_ path: String, _ uuid: String) throws -> Data {
        let row = try rawQuery(path, "SELECT compact_payload FROM notifications WHERE notification_uuid = ?", [.text(uuid)])
        guard case .blob(let body) = try #require(row.first?.first) else {
            Issue.record("no compact payload for \(uuid)")
            return Data()
        }
        return body
    }

    @Test func snapshotsThatAreTheNestedPayloadsAreNotStoredTwice() throws {
        let directory = try TemporaryDirectory()
        let chain = try TestChain()
        let same = try Self.record("equal", chain: chain, transaction: Self.transactionJSON, renewal: Self.renewalJSON)
        // Snapshots that differ from the nested payloads (by one byte) are kept, the payload whole
        // (same UUID length: the two bodies differ only by what is left out).
        let other = try Self.record(
            "other", chain: chain, transaction: Self.transactionJSON.replacingOccurrences(of: "t-1", with: "t-2"),
            renewal: Self.renewalJSON + " ")
        do {
            let store = try SQLiteStore(path: directory.databasePath)
            defer { store.close() }
            #expect(try store.store(same) == .stored)
            #expect(try store.store(other) == .stored)
        }
        let referring = try Self.storedBody(directory.databasePath, "equal")
        let whole = try Self.storedBody(directory.databasePath, "other")
        #expect(referring.first == 1 && whole.first == 0)
        let left =
            Base64.encode(Data(Self.transactionJSON.utf8), alphabet: .url).utf8.count
            + Base64.encode(Data(Self.renewalJSON.utf8), alphabet: .url).utf8.count
        #expect(referring.count == whole.count - left + 1 + 2 * 18)

        // A fresh store, its readers and a read-only reader all give back the exact JWS.
        let store = try SQLiteStore(path: directory.databasePath)
        defer { store.close() }
        for record in [same, other] {
            #expect(try store.notification(uuid: record.notificationUUID)?.signedPayload == record.signedPayload)
        }
        let listed = try store.notifications(NotificationFilter(limit: 10))
        #expect(Set(listed.map(\.signedPayload)) == [same.signedPayload, other.signedPayload])
        let reader = try SQLiteReader(path: directory.databasePath)
        #expect(try reader.notification(uuid: "equal")?.signedPayload == same.signedPayload)
    }

    /// The snapshot columns are part of the stored payload now: a row whose snapshot is gone or
    /// changed (by a byte, or swapped with the other) does not expand, and is reported corrupt
    /// rather than answered with a wrong JWS.
    @Test(arguments: [
        "UPDATE notifications SET renewal_json = NULL",
        "UPDATE notifications SET transaction_json = replace(transaction_json, 't-1', 't-9')",
        "UPDATE notifications SET transaction_json = renewal_json, renewal_json = transaction_json",
    ])
    func aPayloadWhoseSnapshotIsGoneOrChangedIsReportedCorrupt(change: String) throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.databasePath)
        defer { store.close() }
        let record = try Self.record("gone", chain: try TestChain(), transaction: Self.transactionJSON, renewal: Self.renewalJSON)
        #expect(try store.store(record) == .stored)
        #expect(try store.notification(uuid: "gone")?.signedPayload == record.signedPayload)
        try store.write { transaction in try transaction.execute(change) }
        #expect(throws: StoreError.self) { try store.notification(uuid: "gone") }
    }

    /// A notification with renewal info and no transaction (as some carry) refers to its renewal
    /// snapshot alone, at the renewal's index.
    @Test func aRenewalSnapshotAloneIsReferredToAtItsIndex() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.databasePath)
        defer { store.close() }
        var record = try Self.record(
            "renewal", chain: try TestChain(), transaction: Self.transactionJSON, renewal: Self.renewalJSON)
        record.transaction = nil
        record.transactionId = nil
        #expect(try store.store(record) == .stored)
        let body = try Self.storedBody(directory.databasePath, "renewal")
        #expect(body.first == 1)
        #expect(body.range(of: Data([1, UInt8(ascii: "1")])) != nil)
        #expect(body.range(of: Data([1, UInt8(ascii: "0")])) == nil)
        #expect(try store.notification(uuid: "renewal")?.signedPayload == record.signedPayload)
    }

    /// A build before migration 16 would take the references for payload bytes: it refuses the
    /// database (a schema version it does not know) instead of answering a wrong JWS.
    @Test func aBuildBeforeTheseReferencesRefusesTheDatabase() throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try SQLiteStore(path: directory.databasePath)
            defer { store.close() }
            let record = try Self.record(
                "new", chain: try TestChain(), transaction: Self.transactionJSON, renewal: Self.renewalJSON)
            #expect(try store.store(record) == .stored)
        }
        let connection = try SQLiteConnection(path: directory.databasePath, role: .writer)
        // Builds before migration 16, and before 17 (histories without their snapshots) alike.
        for version: Int64 in [16, 17] {
            let older = Migrator(connection: connection, migrations: Migration.all.filter { $0.version < version })
            let refused = #expect(throws: StoreError.self) { try older.migrate() }
            #expect(refused?.message.contains("does not know") == true)
        }
    }
}
