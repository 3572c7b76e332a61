import Testing

@testable import Storage

@Suite struct SnapshotTests {
    func notification(_ uuid: String, transactionSignedAt signedDate: Int64?, product: String) -> NotificationRecord {
        var record = makeRecord(uuid)
        record.transactionId = "t1"
        record.transaction = TransactionSnapshot(
            transactionId: "t1", originalTransactionId: "o1", productId: product, signedDate: signedDate,
            json: #"{"productId":"\#(product)"}"#)
        record.renewalInfo = RenewalSnapshot(originalTransactionId: "o1", productId: product, json: "{}")
        return record
    }

    @Test func eachNotificationKeepsTheSnapshotsItCarried() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }

        _ = try store.store(notification("n1", transactionSignedAt: 200, product: "b"))
        _ = try store.store(notification("n2", transactionSignedAt: 100, product: "a"))
        let n1 = try #require(try store.notification(uuid: "n1"))
        let n2 = try #require(try store.notification(uuid: "n2"))
        #expect(n1.transaction == notification("n1", transactionSignedAt: 200, product: "b").transaction)
        #expect(n2.transaction?.productId == "a")
        #expect(n2.transaction?.signedDate == 100)
        #expect(n2.transaction?.json == #"{"productId":"a"}"#)
        #expect(n2.renewalInfo == notification("n2", transactionSignedAt: 100, product: "a").renewalInfo)
        // Without snapshots, none are read back.
        _ = try store.store(makeRecord("n3"))
        #expect(try store.notification(uuid: "n3")?.transaction == nil)
        #expect(try store.notification(uuid: "n3")?.renewalInfo == nil)
    }
}
