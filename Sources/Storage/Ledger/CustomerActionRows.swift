import Foundation
import Subscriptions

/// The rows of `customer_actions` (migration 22): what the API did to customers, kept as JSON so
/// `replay` applies each again, in order.
public enum CustomerActionRows {
    /// Stores an action and applies it, in `transaction`; logged as an input.
    public static func apply(
        _ action: CustomerAction, app: LedgerApp, atMs: Int64, cache: LedgerCache? = nil, in transaction: WriteTransaction
    ) throws {
        try transaction.execute(
            "INSERT INTO customer_actions (app_id, json, received_at) VALUES (?, ?, ?)",
            [.text(app.id), .text(try LedgerRows.encode(action)), .integer(atMs)])
        let id = try transaction.query("SELECT last_insert_rowid()").first?.first?.integerValue ?? 0
        try LedgerInputs.apply(.customerAction(action), app: app, atMs: atMs, cache: cache, in: transaction)
        try LedgerInputs.log(kind: "customer_action", ref: String(id), appId: app.id, atMs: atMs, in: transaction)
    }

    /// The input a stored action was.
    public static func input(id: String, in transaction: WriteTransaction) throws -> Ledger.Input {
        guard let number = Int64(id),
            let json = try transaction.query("SELECT json FROM customer_actions WHERE id = ?", [.integer(number)])
                .first?.first?.textValue
        else { throw ReplayError("customer action \(id) is not stored") }
        return .customerAction(try LedgerRows.decode(CustomerAction.self, json))
    }
}
