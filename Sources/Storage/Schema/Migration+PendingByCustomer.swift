// Migration 31: a customer's pending deliveries, found without reading the rest.

extension Migration {
    /// The pending deliveries of one customer of an app (`Outbox.movePending`, when a merge
    /// moves them to the customer it joined): only pending rows are in it, so it stays as small
    /// as the backlog, however many deliveries were made. The same index on PostgreSQL
    /// (`PostgresSchema.later`).
    static let v31 = Migration(
        version: 31,
        name: "pending deliveries by customer",
        sql: """
            CREATE INDEX deliveries_pending_by_customer ON deliveries (app_id, customer) WHERE status = 'pending';
            """)
}
