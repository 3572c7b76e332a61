import Foundation
import Subscriptions

/// The rows of `customer_actions` (migration 22): what the API did to customers, kept as JSON so
/// `replay` applies each again, in order.
public enum CustomerActionRows {
    /// Stores an action; returns its row id (`applied_inputs.ref`). `LedgerInputs.keepAndApply`
    /// applies it.
    static func insert(_ action: CustomerAction, appId: String, atMs: Int64, in transaction: WriteTransaction) throws
        -> Int64
    {
        try transaction.insert(
            returningId: "INSERT INTO customer_actions (app_id, json, received_at) VALUES (?, ?, ?) RETURNING id",
            [.text(appId), .text(try LedgerRows.encode(action)), .integer(atMs)])
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
