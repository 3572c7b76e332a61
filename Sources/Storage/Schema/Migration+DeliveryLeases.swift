// Migration 25: deliveries claimed by one node at a time.

extension Migration {
    /// Where several nodes share a database (PostgreSQL), a node claims the deliveries it is about
    /// to send, for a lease (`Deliveries.claimDue`): `claimed_by` names the node, `claimed_until`
    /// (UNIX ms) ends the claim, so that a node killed mid-delivery leaves its events to the
    /// others once the lease is over. NULL, as in every row before, means unclaimed. One node on
    /// SQLite (the only writer of its file) needs no claims and writes none.
    static let v25 = Migration(
        version: 25,
        name: "delivery leases",
        sql: """
            ALTER TABLE deliveries ADD COLUMN claimed_by TEXT;
            ALTER TABLE deliveries ADD COLUMN claimed_until INTEGER;
            """)
}
