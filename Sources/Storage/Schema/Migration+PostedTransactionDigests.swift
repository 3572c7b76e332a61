// Migration 18: posted transactions known by their content, so a repost stores nothing.

extension Migration {
    /// `content_digest`: SHA-256 (hex) of a posted transaction's payload without its `signedDate`,
    /// which App Store changes each time it signs the same transaction again. A post whose
    /// transaction's latest row has the same customer and digest changes nothing and is not
    /// stored again (`PostedTransactionRows` in RevenueDot); the index finds that row. Rows
    /// written before have none, and the next post of their transaction is stored once more.
    static let v18 = Migration(
        version: 18,
        name: "posted transactions known by their content",
        sql: """
            ALTER TABLE posted_transactions ADD COLUMN content_digest TEXT;
            CREATE INDEX posted_transactions_by_transaction ON posted_transactions (app_id, transaction_id);
            """)
}
