import Foundation
import JSON
import Subscriptions

/// What the API reads of the ledger: a customer with the views of its purchases, and which
/// purchases are stored, without loading any history.
extension LedgerRows {
    /// A customer and every purchase it owns, without their histories: what `GET /v1/subscribers/{id}`
    /// shows. Not for applying inputs: use `slice(for:app:from:)`.
    /// An alias is resolved: the ledger holds the customer under its own id (`customerId`).
    public static func customerSlice(_ appUserId: String, app: LedgerApp, from rows: some RowReader) throws -> Ledger {
        var ledger = Ledger(configuration: app.configuration)
        let id = try CustomerRows.customerId(of: appUserId, appId: app.id, from: rows)
        if id != appUserId { ledger.aliasOwners[appUserId] = id }
        guard let customer = try customer(id, app: app, from: rows) else { return ledger }
        ledger.customers[id] = customer
        let owned = try rows.query(ownedPurchases, [.text(app.id), .text(id)])
        for row in owned {
            guard let key = row[0].textValue, let json = row[1].textValue else { continue }
            if key.hasPrefix("s:") {
                ledger.subscriptions[String(key.dropFirst(2))] = try decode(SubscriptionState.self, json)
            } else {
                ledger.oneTimePurchases[String(key.dropFirst(2))] = try decode(OneTimePurchase.self, json)
            }
        }
        return ledger
    }

    /// The purchases a customer owns: `owner = ?` lets SQLite use the partial index on owned
    /// purchases (migration 10).
    public static let ownedPurchases = "SELECT purchase_key, json FROM purchases WHERE app_id = ? AND owner = ?"

    /// A customer (by its id or an alias) and the views of the purchases it owns, in the order `Ledger.views(of:)` gives:
    /// what `GET /v1/subscribers/{id}` shows. A purchase written before views existed (migration 6)
    /// is read from its state instead.
    public static func customerView(
        _ appUserId: String, app: LedgerApp, from rows: some RowReader
    ) throws -> (customer: CustomerState, purchases: [PurchaseView], lastSeenMs: Int64?)? {
        // One statement: the customer, its last contact and its views side by side (the
        // customer's columns repeat), found by its own id or by an alias.
        let found = try rows.query(
            """
            SELECT c.json, v.purchase_key, v.view, k.last_seen_at FROM customers c
            LEFT JOIN purchase_views v ON v.app_id = c.app_id AND v.owner = c.app_user_id
            LEFT JOIN customer_contacts k ON k.app_id = c.app_id AND k.app_user_id = c.app_user_id
            WHERE c.app_id = ?1 AND c.app_user_id = coalesce(
                (SELECT app_user_id FROM customer_aliases WHERE app_id = ?1 AND alias = ?2), ?2)
            """, [.text(app.id), .text(appUserId)])
        guard let first = found.first, let customerJSON = first[0].textValue else { return nil }
        let customer = try CustomerState(stored: JSONValue(parsing: Data(customerJSON.utf8)))
        var stored: [String: PurchaseView] = [:]
        for row in found {
            guard let key = row[1].textValue, let json = row[2].textValue else { continue }
            stored[key] = try PurchaseView(stored: JSONValue(parsing: Data(json.utf8)))
        }
        let purchases = try customer.purchases.compactMap { (purchase) throws -> PurchaseView? in
            if let view = stored[Self.key(purchase)] { return view }
            return try storedState(purchase, app: app, from: rows)
        }
        return (customer, purchases, first[3].integerValue)
    }

    /// The view of a purchase made from its stored state; nil when it has none yet.
    private static func storedState(_ purchase: PurchaseKey, app: LedgerApp, from rows: some RowReader) throws -> PurchaseView? {
        guard let json = try text(rows, "SELECT json FROM purchases WHERE app_id = ? AND purchase_key = ?", app.id, key(purchase))
        else { return nil }
        switch purchase {
        case .subscription: return try decode(SubscriptionState.self, json).view
        case .oneTime: return try decode(OneTimePurchase.self, json).view
        }
    }

    static func customer(_ id: String, app: LedgerApp, from rows: some RowReader) throws -> CustomerState? {
        try text(rows, "SELECT json FROM customers WHERE app_id = ? AND app_user_id = ?", app.id, id)
            .map { try decode(CustomerState.self, $0) }
    }

    static func text(_ rows: some RowReader, _ sql: String, _ first: String, _ second: String) throws -> String? {
        try rows.query(sql, [.text(first), .text(second)]).first?.first?.textValue
    }

    /// Whether the app's purchase `id` (a subscription's original transaction id, or a one-time
    /// purchase's transaction id) is stored, and who owns it (nil for nobody).
    public static func storedOwner(purchaseId id: String, appId: String, from rows: some RowReader) throws(StoreError)
        -> (stored: Bool, owner: String?)
    {
        let found = try rows.query(
            "SELECT owner FROM purchases WHERE app_id = ? AND purchase_key IN (?, ?)",
            [.text(appId), .text(key(.subscription(originalTransactionId: id))), .text(key(.oneTime(transactionId: id)))])
        guard let row = found.first else { return (false, nil) }
        return (true, row[0].textValue)
    }

    /// The original transaction ids of the app's stored subscriptions, in order; with `only`,
    /// that one if it is stored.
    public static func subscriptionIds(appId: String, only: String? = nil, from rows: some RowReader) throws(StoreError)
        -> [String]
    {
        let sql =
            only == nil
            ? "SELECT purchase_key FROM purchases WHERE app_id = ? AND purchase_key LIKE 's:%' ORDER BY purchase_key"
            : "SELECT purchase_key FROM purchases WHERE app_id = ? AND purchase_key = ?"
        let arguments: [SQLValue] = [.text(appId)] + (only.map { [.text(key(.subscription(originalTransactionId: $0)))] } ?? [])
        return try rows.query(sql, arguments).compactMap { $0.first?.textValue.map { String($0.dropFirst(2)) } }
    }
}
