import Testing

@testable import Storage

@Suite struct NotificationStoreTests {
    static let full = NotificationRecord(
        notificationUUID: "6e5f0b3c-1b9b-4a55-9a3e-6a3f1f1d2c01", appId: "demo", notificationType: "SUBSCRIBED",
        subtype: "INITIAL_BUY", environment: "Sandbox", bundleId: "com.example.app", signedDate: 1_700_000_000_123,
        originalTransactionId: "1000000000000001", transactionId: "1000000000000002", receivedAt: 1_700_000_000_456,
        state: .held, stateReason: "no app matches bundleId com.example.app in Sandbox",
        signedPayload: "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUkiXX0.eyJub3RpZmljYXRpb25UeXBlIjoiU1VCU0NSSUJFRCJ9.c2ln",
        transaction: TransactionSnapshot(
            transactionId: "1000000000000002", originalTransactionId: "1000000000000001", productId: "pro.monthly",
            environment: "Sandbox", signedDate: 1_700_000_000_100, json: #"{"productId":"pro.monthly","price":4990}"#),
        renewalInfo: RenewalSnapshot(
            originalTransactionId: "1000000000000001", productId: "pro.yearly", environment: "Sandbox",
            signedDate: 1_700_000_000_101, json: #"{"autoRenewStatus":1,"note":"ünïcødé ✓"}"#))

    @Test(arguments: [full, makeRecord("minimal")])
    func storedRecordReadsBackWithEveryField(record: NotificationRecord) throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }

        #expect(try store.store(record) == .stored)
        #expect(try store.notification(uuid: record.notificationUUID) == record)
        #expect(try store.notifications(NotificationFilter()) == [record])
        #expect(try store.notification(uuid: "unknown") == nil)
    }

    @Test func duplicateUUIDChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        let original = makeRecord("same", receivedAt: 1000)
        var again = makeRecord("same", appId: "other", receivedAt: 2000)
        again.state = .applied
        again.signedPayload = "different"
        again.transactionId = "t1"
        again.transaction = TransactionSnapshot(transactionId: "t1", json: "{}")

        #expect(try store.store(original) == .stored)
        #expect(try store.store(again) == .duplicate)
        #expect(try store.notification(uuid: "same") == original)
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM notifications") == [[.integer(1)]])
    }

    @Test func filtersSelectAndOrderNewestFirst() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        var records: [NotificationRecord] = []
        for index in 0..<10 {
            var record = makeRecord(
                "n\(index)", appId: index.isMultiple(of: 2) ? "even" : "odd", type: index < 5 ? "DID_RENEW" : "EXPIRED",
                receivedAt: 1000 + Int64(index))
            record.state = index == 3 ? .held : .received
            record.originalTransactionId = index < 3 ? "sub-1" : nil
            records.append(record)
            _ = try store.store(record)
        }
        func uuids(_ filter: NotificationFilter) throws -> [String] {
            try store.notifications(filter).map(\.notificationUUID)
        }

        #expect(try uuids(NotificationFilter()) == ["n9", "n8", "n7", "n6", "n5", "n4", "n3", "n2", "n1", "n0"])
        #expect(try uuids(NotificationFilter(appId: "even")) == ["n8", "n6", "n4", "n2", "n0"])
        #expect(try uuids(NotificationFilter(state: .held)) == ["n3"])
        // Unapplied states go through the partial index (migration 9); `applied` scans.
        #expect(try uuids(NotificationFilter(state: .received, limit: 3)) == ["n9", "n8", "n7"])
        #expect(try uuids(NotificationFilter(state: .applied)) == [])
        #expect(try uuids(NotificationFilter(notificationType: "EXPIRED", limit: 2)) == ["n9", "n8"])
        #expect(try uuids(NotificationFilter(originalTransactionId: "sub-1")) == ["n2", "n1", "n0"])
        #expect(try uuids(NotificationFilter(appId: "odd", before: 1005)) == ["n3", "n1"])
        #expect(try uuids(NotificationFilter(limit: 0)) == [])
        #expect(try uuids(NotificationFilter(limit: -1)) == [])
    }

    @Test func recordsThatCannotBeStoredAreRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        var mismatched = makeRecord("mismatched")
        mismatched.transaction = TransactionSnapshot(transactionId: "t1", json: "{}")
        var emptyPayload = makeRecord("empty-payload")
        emptyPayload.signedPayload = ""

        for record in [makeRecord(""), mismatched, emptyPayload] {
            let error = #expect(throws: StoreError.self) { try store.store(record) }
            #expect(error?.code == .invalid)
        }
        #expect(try store.notifications(NotificationFilter()).isEmpty)
    }
}
