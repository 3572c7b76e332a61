import AppStore
import Foundation
import Storage
import Subscriptions

/// The rows of `apple_answers`: Apple's answers about purchases (reconciliation), kept as
/// received so `replay` applies them again.
enum AppleAnswerRows {
    /// Stores an answer and applies it to the purchase, in `transaction`; logged as an input.
    static func apply(
        signedTransaction: String, signedRenewalInfo: String?, transaction payload: JWSTransactionDecodedPayload,
        renewalInfo: JWSRenewalInfoDecodedPayload?, appUserId: String? = nil, app: AppConfig, atMs: Int64,
        deliver: Bool = true, in transaction: WriteTransaction
    ) throws {
        try transaction.execute(
            """
            INSERT INTO apple_answers (app_id, signed_transaction, signed_renewal_info, app_user_id, received_at)
            VALUES (?, ?, ?, ?, ?)
            """,
            [
                .text(app.id), .text(signedTransaction), signedRenewalInfo.map(SQLValue.text) ?? .null,
                appUserId.map(SQLValue.text) ?? .null, .integer(atMs),
            ])
        let id = try transaction.query("SELECT last_insert_rowid()").first?.first?.integerValue ?? 0
        try LedgerInputs.apply(
            .appleAnswered(payload, renewalInfo: renewalInfo, appUserId: appUserId), app: app, atMs: atMs, deliver: deliver,
            in: transaction)
        try LedgerInputs.log(kind: "apple_answer", ref: String(id), app: app, atMs: atMs, in: transaction)
    }

    /// The input an applied answer was, verified again.
    static func input(id: String, verifier: AppVerifiers, in transaction: WriteTransaction) throws -> Ledger.Input {
        guard let number = Int64(id),
            let row = try transaction.query(
                "SELECT signed_transaction, signed_renewal_info, received_at, app_user_id FROM apple_answers WHERE id = ?",
                [.integer(number)]
            ).first, let signed = row[0].textValue
        else { throw ReplayError("applied answer of Apple's \(id) is not stored") }
        let at = Date(timeIntervalSince1970: Double(row[2].integerValue ?? 0) / 1000)
        let payload = try verifier.signatureOnly.verifyTransaction(signed, now: at).payload
        let renewal = try row[1].textValue.map { try verifier.signatureOnly.verifyRenewalInfo($0, now: at).payload }
        return .appleAnswered(payload, renewalInfo: renewal, appUserId: row[3].textValue)
    }
}
