// Migration 22: customer identities (aliases), last contacts, and the API's customer actions.

extension Migration {
    /// `customer_aliases`: every id a customer is known by besides its `app_user_id`, to find
    /// the customer from any of them (derived from `customers.json`'s aliases, rebuilt by
    /// replay). `customer_contacts`: when the app (its public key) last asked about or posted for
    /// a customer, RevenueCat's `last_seen` (written every few seconds, not replayed).
    /// `customer_actions`: what the API did to customers (seen, aliased, deleted), an
    /// input `replay` applies again in order (`applied_inputs` kind `customer_action`).
    static let v22 = Migration(
        version: 22,
        name: "customer aliases and customer actions",
        sql: """
            CREATE TABLE customer_aliases (
                app_id TEXT NOT NULL,
                alias TEXT NOT NULL,
                app_user_id TEXT NOT NULL,
                PRIMARY KEY (app_id, alias)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX customer_aliases_by_customer ON customer_aliases (app_id, app_user_id);

            CREATE TABLE customer_contacts (
                app_id TEXT NOT NULL,
                app_user_id TEXT NOT NULL,
                last_seen_at INTEGER NOT NULL,
                PRIMARY KEY (app_id, app_user_id)
            ) STRICT, WITHOUT ROWID;

            CREATE TABLE customer_actions (
                id INTEGER PRIMARY KEY,
                app_id TEXT NOT NULL,
                json TEXT NOT NULL,
                received_at INTEGER NOT NULL
            ) STRICT;
            """,
        rewrites: [
            ConstraintRewrite(
                table: "applied_inputs",
                from: "CHECK (kind = 'notification' OR kind = 'posted_transaction' OR kind = 'timer' OR kind = 'apple_answer')",
                to:
                    "CHECK (kind = 'notification' OR kind = 'posted_transaction' OR kind = 'timer' OR kind = 'apple_answer' OR kind = 'customer_action')"
            )
        ])
}
