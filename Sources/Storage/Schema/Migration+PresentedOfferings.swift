// Migration 30: the offering a posted purchase was sold from.

extension Migration {
    /// `presented_offering_id`: the offering the app said it sold a posted transaction's purchase
    /// from (RevenueCat's SDK posts `presented_offering_identifier`), which its events carry from
    /// then on; replay reads it back. NULL, as in every row before, for none. The same column on
    /// PostgreSQL (`PostgresSchema.later`).
    static let v30 = Migration(
        version: 30,
        name: "presented offerings of posted transactions",
        sql: """
            ALTER TABLE posted_transactions ADD COLUMN presented_offering_id TEXT;
            """)
}
