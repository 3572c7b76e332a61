import Subscriptions

/// Customer identities in `customer_aliases` (migration 22): every id a customer is known by
/// besides its own, written from `CustomerState.aliases` whenever the customer is.
public enum CustomerRows {
    /// The customer `id` names: the one it is an alias of, else itself.
    public static func customerId(of id: String, appId: String, from rows: some RowReader) throws -> String {
        try rows.query(
            "SELECT app_user_id FROM customer_aliases WHERE app_id = ? AND alias = ?", [.text(appId), .text(id)]
        ).first?.first?.textValue ?? id
    }

    /// The customer `id` names, by its own id or an alias, in one statement; nil when none. (An
    /// alias row lives only as long as its customer's row: `remove` deletes both.)
    public static func customer(named id: String, appId: String, from rows: some RowReader) throws -> CustomerState? {
        let statement = named(id, appId: appId)
        return try customer(in: rows.query(statement.sql, statement.arguments))
    }

    /// The query `customer(named:)` runs, for a caller that sends it with others (`RowReader.queries`).
    static func named(_ id: String, appId: String) -> (sql: String, arguments: [SQLValue]) {
        (
            """
            SELECT json FROM customers WHERE app_id = ?1 AND app_user_id = coalesce(
                (SELECT app_user_id FROM customer_aliases WHERE app_id = ?1 AND alias = ?2), ?2)
            """, [.text(appId), .text(id)]
        )
    }

    /// The customer `named`'s answer holds, if any.
    static func customer(in answer: [[SQLValue]]) throws -> CustomerState? {
        try answer.first?.first?.textValue.map { try LedgerRows.decode(CustomerState.self, $0) }
    }

    /// The purchases `appUserId` owns (the partial index on owned purchases serves `owner = ?`).
    public static func ownedPurchases(of appUserId: String, appId: String, from rows: some RowReader) throws -> [PurchaseKey] {
        try rows.query("SELECT purchase_key FROM purchases WHERE app_id = ? AND owner = ?", [.text(appId), .text(appUserId)])
            .compactMap { row in
                guard let key = row.first?.textValue else { return nil }
                let id = String(key.dropFirst(2))
                return key.hasPrefix("s:") ? .subscription(originalTransactionId: id) : .oneTime(transactionId: id)
            }
    }

    /// Points every alias of `customer` at it that `stored`, the customer as its row was read,
    /// did not hold already (its rows point at it): a write costs the aliases it adds, not all
    /// the customer has.
    public static func saveAliases(
        of customer: CustomerState, storedAs stored: CustomerState? = nil, appId: String, in transaction: WriteTransaction
    ) throws {
        let pointed = stored.map { Set($0.aliases) } ?? []
        for alias in customer.aliases where alias != customer.appUserId && !pointed.contains(alias) {
            try transaction.write(
                """
                INSERT INTO customer_aliases (app_id, alias, app_user_id) VALUES (?, ?, ?)
                ON CONFLICT (app_id, alias) DO UPDATE SET app_user_id = excluded.app_user_id
                """, [.text(appId), .text(alias), .text(customer.appUserId)])
        }
    }

    /// Removes a customer merged into another (its aliases are then the other's) or deleted.
    public static func remove(_ appUserId: String, appId: String, in transaction: WriteTransaction) throws {
        try transaction.write(
            "DELETE FROM customers WHERE app_id = ? AND app_user_id = ?", [.text(appId), .text(appUserId)])
        try transaction.write(
            "DELETE FROM customer_aliases WHERE app_id = ? AND app_user_id = ?", [.text(appId), .text(appUserId)])
        try transaction.write(
            "DELETE FROM customer_contacts WHERE app_id = ? AND app_user_id = ?", [.text(appId), .text(appUserId)])
    }

    /// Records that `appUserId` was in contact at `atMs` (the latest contact wins), only for a
    /// customer that still exists: one deleted since keeps no trace.
    public static func recordContact(appId: String, appUserId: String, atMs: Int64, in transaction: WriteTransaction)
        throws(StoreError)
    {
        try transaction.write(
            """
            INSERT INTO customer_contacts (app_id, app_user_id, last_seen_at)
            SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM customers WHERE app_id = ?1 AND app_user_id = ?2)
            ON CONFLICT (app_id, app_user_id) DO UPDATE SET last_seen_at = CASE
                WHEN excluded.last_seen_at > customer_contacts.last_seen_at THEN excluded.last_seen_at
                ELSE customer_contacts.last_seen_at END
            """, [.text(appId), .text(appUserId), .integer(atMs)])
    }
}
