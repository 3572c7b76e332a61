import Testing

@_spi(StoreSQL) @testable import Storage

/// The queries run on every poll or pass read through the index meant for them, not through
/// another that would read every row of the app (SQLite has no statistics to tell them apart):
/// every event at each `/v1/events` poll, every notification in the writer at each consumption
/// pass.
@Suite struct QueryPlanTests {
    static func plan(_ sql: String, _ arguments: [SQLValue]) throws -> [String] {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        return try store.read { (rows) throws(StoreError) in
            try rows.query("EXPLAIN QUERY PLAN " + sql, arguments)
        }.compactMap { $0.last?.textValue }
    }

    @Test func theEventsFeedReadsTheAppsEventsInPositionOrderWithoutSorting() throws {
        let details = try Self.plan(EventRows.pageSQL, [.text("demo"), .integer(0), .integer(.max), .integer(100)])
        #expect(details.contains { $0.contains("events_by_app") }, "plan: \(details)")
        #expect(!details.contains { $0.contains("TEMP B-TREE") }, "plan: \(details)")
    }

    @Test func theConsumptionPassReadsOnlyTheRequests() throws {
        let details = try Self.plan(
            Store.enqueueConsumptionRequestsSQL(apps: 2),
            [.integer(0), .integer(0), .text("demo"), .text("other")])
        #expect(details.contains { $0.contains("notifications_consumption_requests") }, "plan: \(details)")
        #expect(!details.contains { $0.contains("notifications_by_app") }, "plan: \(details)")
    }
}
