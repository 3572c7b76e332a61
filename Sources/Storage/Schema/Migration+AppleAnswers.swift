// Migrations 20 and 21: what the App Store Server API answered, as applied (reconciliation, import).

extension Migration {
    /// `apple_answers`: each answer of Apple's about a purchase that was applied to its state
    /// (its latest transaction and renewal info, signed JWS as received), an input `replay`
    /// applies again in order (`applied_inputs` kind `apple_answer`, which the kind's constraint
    /// now accepts: a wider constraint, which every stored row meets, so the rewrite of its text
    /// rewrites no row, as in migration 15).
    static let v20 = Migration(
        version: 20,
        name: "answers of the App Store Server API",
        sql: """
            CREATE TABLE apple_answers (
                id INTEGER PRIMARY KEY,
                app_id TEXT NOT NULL,
                signed_transaction TEXT NOT NULL,
                signed_renewal_info TEXT,
                app_user_id TEXT,
                received_at INTEGER NOT NULL
            ) STRICT;
            """,
        rewrites: [
            ConstraintRewrite(
                table: "applied_inputs", from: "CHECK (kind = 'notification' OR kind = 'posted_transaction' OR kind = 'timer')",
                to: "CHECK (kind = 'notification' OR kind = 'posted_transaction' OR kind = 'timer' OR kind = 'apple_answer')")
        ])
}

extension Migration {
    /// `apple_answers.from_history`: 1 for a past transaction from Transaction History (import),
    /// which the subscription logic folds at its purchase date; 0 for a current status.
    static let v21 = Migration(
        version: 21,
        name: "answers of the App Store Server API from Transaction History",
        sql: """
            ALTER TABLE apple_answers ADD COLUMN from_history INTEGER NOT NULL DEFAULT 0 CHECK (from_history IN (0, 1));
            """)
}
