import AppStore
import Foundation
import Testing

@testable import Storage

/// Notification payloads are stored as zstd frames, with a dictionary trained on the store's own
/// payloads, and read back as the exact JWS Apple sent.
@Suite struct StoredPayloadTests {
    /// A notification signed over a test chain, with a nested transaction and renewal info.
    static func signedNotification(_ chain: TestChain, uuid: String) throws -> String {
        let transaction = try chain.sign(payload: Data(#"{"transactionId":"\#(uuid)","productId":"pro.monthly"}"#.utf8))
        let renewal = try chain.sign(payload: Data(#"{"autoRenewStatus":1,"productId":"pro.monthly"}"#.utf8))
        let data = #"{"bundleId":"com.example.app","signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)"}"#
        return try chain.sign(
            payload: Data(#"{"notificationType":"DID_RENEW","notificationUUID":"\#(uuid)","data":\#(data)}"#.utf8))
    }

    static func store(_ path: String) throws -> Store {
        try Store(
            path: path, handOff: KeepReceived(), maxBatch: 512, readers: 2, onCommit: nil, dictionaryWindow: 8,
            flush: WALFlusher.fdatasync)
    }

    /// Stores `count` notifications signed by `chain`, one at a time, and waits for a training it started.
    static func storeSigned(
        _ count: Int, by chain: TestChain, prefix: String, in store: Store, sent: inout [String: String]
    ) throws {
        for index in 0..<count {
            // Of one length, as Apple's are: a longer one moves what follows it to another base64
            // alignment, which a dictionary made of the others does not hold yet.
            let uuid = "\(prefix)-" + String(format: "%02d", index)
            var record = makeRecord(uuid)
            record.signedPayload = try signedNotification(chain, uuid: uuid)
            sent[uuid] = record.signedPayload
            #expect(try store.store(record) == .stored)
            store.payloads.waitForTrainings()
        }
    }

    /// (dictionary, payload bytes, raw bytes) of each row, in the order stored.
    static func rows(_ path: String) throws -> [(dictionary: Int64?, bytes: Int64)] {
        try rawQuery(path, "SELECT payload_dictionary, length(payload) FROM notifications ORDER BY id").map {
            ($0[0].integerValue, $0[1].integerValue ?? 0)
        }
    }

    @Test func aDictionaryTrainedOnTheFirstPayloadsShrinksTheNextAndAllReadBackExactly() throws {
        let directory = try TemporaryDirectory()
        var sent: [String: String] = [:]
        do {
            let store = try Self.store(directory.databasePath)
            defer { store.close() }
            try Self.storeSigned(12, by: try TestChain(name: "One"), prefix: "one", in: store, sent: &sent)
            #expect(try store.store(makeRecord("short")) == .stored)
            sent["short"] = makeRecord("short").signedPayload
        }
        let rows = try Self.rows(directory.databasePath)
        // Eight without a dictionary, the window it is trained on; then every row names it.
        #expect(rows.prefix(8).allSatisfy { $0.dictionary == nil })
        #expect(rows.dropFirst(8).allSatisfy { $0.dictionary == 1 })
        let raw = Int64(try #require(sent["one-00"]).utf8.count)
        #expect(rows.prefix(8).allSatisfy { $0.bytes * 3 < raw * 2 })
        #expect(rows.dropFirst(8).prefix(4).allSatisfy { $0.bytes * 8 < raw }, "\(rows.map(\.bytes)) of \(raw)")
        #expect(
            try rawQuery(directory.databasePath, "SELECT id, samples FROM payload_dictionaries") == [[.integer(1), .integer(8)]])
        // Made of a few of those payloads: enough to hold what they have in common.
        let size = try rawQuery(directory.databasePath, "SELECT length(dictionary) FROM payload_dictionaries")
        #expect((size.first?.first?.integerValue ?? 0) <= Int64(StoredPayloads.dictionaryCapacity))

        // Read back by a store that has not seen the dictionary yet.
        let store = try Self.store(directory.databasePath)
        defer { store.close() }
        for (uuid, payload) in sent {
            #expect(try store.notification(uuid: uuid)?.signedPayload == payload, "\(uuid)")
        }
        let listed = try store.notifications(NotificationFilter(limit: 100))
        #expect(listed.count == sent.count)
        #expect(listed.allSatisfy { sent[$0.notificationUUID] == $0.signedPayload })
    }

    /// The window is the database's: a store reopened after every few notifications (a server
    /// restarted often, several nodes) still trains a dictionary once a window of them is stored.
    @Test func payloadsStoredBeforeARestartCountTowardTheWindow() throws {
        let directory = try TemporaryDirectory()
        var sent: [String: String] = [:]
        let chain = try TestChain(name: "Restarted")
        for round in 0..<3 {
            let store = try Self.store(directory.databasePath)
            defer { store.close() }
            store.payloads.waitForTrainings()
            try Self.storeSigned(3, by: chain, prefix: "r\(round)", in: store, sent: &sent)
        }
        let rows = try Self.rows(directory.databasePath)
        // Three and three without one; the third store's start weighed those six, and the eighth
        // filled the window: the ninth is compressed with the dictionary trained on them.
        #expect(rows.count == 9)
        #expect(rows.prefix(8).allSatisfy { $0.dictionary == nil }, "\(rows)")
        #expect(rows.last?.dictionary == 1, "\(rows)")
        #expect(
            try rawQuery(directory.databasePath, "SELECT id, samples FROM payload_dictionaries") == [[.integer(1), .integer(8)]])
    }

    /// A new signing chain misses the dictionary: a new one is trained, and older rows keep theirs.
    @Test func aNewChainGetsANewDictionary() throws {
        let directory = try TemporaryDirectory()
        var sent: [String: String] = [:]
        let store = try Self.store(directory.databasePath)
        defer { store.close() }
        try Self.storeSigned(10, by: try TestChain(name: "One"), prefix: "one", in: store, sent: &sent)
        try Self.storeSigned(12, by: try TestChain(name: "Two"), prefix: "two", in: store, sent: &sent)
        let dictionaries = try Self.rows(directory.databasePath).map(\.dictionary)
        #expect(Set(dictionaries) == [nil, 1, 2])
        #expect(dictionaries.last == 2)
        // A new store starts with the newest dictionary.
        store.close()
        let reopened = try Self.store(directory.databasePath)
        defer { reopened.close() }
        var record = makeRecord("after")
        record.signedPayload = try Self.signedNotification(try TestChain(name: "Two"), uuid: "after")
        #expect(try reopened.store(record) == .stored)
        #expect(try Self.rows(directory.databasePath).last?.dictionary == 2)
        for (uuid, payload) in sent {
            #expect(try reopened.notification(uuid: uuid)?.signedPayload == payload, "\(uuid)")
        }
    }

    /// A damaged frame or a dictionary gone is reported as corruption, never answered with a wrong JWS.
    @Test(arguments: [
        "UPDATE notifications SET payload = substr(payload, 1, length(payload) - 3)",
        "UPDATE notifications SET payload = x'28b52ffd'",
        "UPDATE notifications SET payload = NULL",
        "UPDATE notifications SET payload_dictionary = 7",
    ])
    func aPayloadThatDoesNotDecompressIsReportedCorrupt(change: String) throws {
        let directory = try TemporaryDirectory()
        var sent: [String: String] = [:]
        let store = try Self.store(directory.databasePath)
        defer { store.close() }
        try Self.storeSigned(9, by: try TestChain(), prefix: "n", in: store, sent: &sent)
        // Behind the store's back, on a connection that does not enforce foreign keys.
        try rawExecute(directory.databasePath, "PRAGMA foreign_keys = OFF; " + change + " WHERE notification_uuid = 'n-08'")
        let error = #expect(throws: StoreError.self) { try store.notification(uuid: "n-08") }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("n-08") == true)
        #expect(try store.notification(uuid: "n-07")?.signedPayload == sent["n-07"])
    }
}
