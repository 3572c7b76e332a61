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

    @Test func transactionSnapshotKeepsTheNewestSignedDate() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.databasePath)
        defer { store.close() }
        let snapshot = "SELECT product_id, signed_date, notification_uuid FROM transactions WHERE transaction_id = 't1'"

        _ = try store.store(notification("n1", transactionSignedAt: 200, product: "b"))
        _ = try store.store(notification("n2", transactionSignedAt: 100, product: "a"))
        #expect(try rawQuery(directory.databasePath, snapshot) == [[.text("b"), .integer(200), .text("n1")]])

        _ = try store.store(notification("n3", transactionSignedAt: 300, product: "c"))
        #expect(try rawQuery(directory.databasePath, snapshot) == [[.text("c"), .integer(300), .text("n3")]])
        #expect(try store.notification(uuid: "n2")?.transaction?.productId == "c")
        // Renewal info is kept per notification.
        #expect(try store.notification(uuid: "n2")?.renewalInfo?.productId == "a")
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM renewal_snapshots") == [[.integer(3)]])
    }
}
