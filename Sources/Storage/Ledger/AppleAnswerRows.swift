import AppStore
import Foundation
import Subscriptions

/// The rows of `apple_answers`: Apple's answers about purchases (reconciliation, import), kept
/// as received so `replay` applies them again.
public enum AppleAnswerRows {
    /// One answer of Apple's: a purchase's current transaction with its renewal info (Get All
    /// Subscription Statuses, Get Transaction Info), or a past transaction (Transaction History).
    public struct Answer: Sendable {
        public var signedTransaction: String
        public var transaction: JWSTransactionDecodedPayload
        public var signedRenewalInfo: String?
        public var renewalInfo: JWSRenewalInfoDecodedPayload?
        public var fromHistory = false

        public init(
            signedTransaction: String, transaction: JWSTransactionDecodedPayload, signedRenewalInfo: String? = nil,
            renewalInfo: JWSRenewalInfoDecodedPayload? = nil, fromHistory: Bool = false
        ) {
            self.signedTransaction = signedTransaction
            self.transaction = transaction
            self.signedRenewalInfo = signedRenewalInfo
            self.renewalInfo = renewalInfo
            self.fromHistory = fromHistory
        }

        /// The reducer's input this answer is.
        public func input(appUserId: String?) -> Ledger.Input {
            fromHistory
                ? .appleHistory(transaction, appUserId: appUserId)
                : .appleAnswered(transaction, renewalInfo: renewalInfo, appUserId: appUserId)
        }
    }

    /// Stores an answer; returns its row id (`applied_inputs.ref`). `LedgerInputs.keepAndApply`
    /// applies it.
    static func insert(_ answer: Answer, appUserId: String?, appId: String, atMs: Int64, in transaction: WriteTransaction)
        throws -> Int64
    {
        try transaction.insert(
            returningId: """
                INSERT INTO apple_answers (app_id, signed_transaction, signed_renewal_info, app_user_id, received_at, from_history)
                VALUES (?, ?, ?, ?, ?, ?) RETURNING id
                """,
            [
                .text(appId), .text(answer.signedTransaction), answer.signedRenewalInfo.map(SQLValue.text) ?? .null,
                appUserId.map(SQLValue.text) ?? .null, .integer(atMs), .integer(answer.fromHistory ? 1 : 0),
            ])
    }

    /// The input an applied answer was, verified again.
    public static func input(id: String, verifier: SignedDataVerifier, in transaction: WriteTransaction) throws -> Ledger.Input {
        guard let number = Int64(id),
            let row = try transaction.query(
                """
                SELECT signed_transaction, signed_renewal_info, received_at, app_user_id, from_history
                FROM apple_answers WHERE id = ?
                """,
                [.integer(number)]
            ).first, let signed = row[0].textValue
        else { throw ReplayError("applied answer of Apple's \(id) is not stored") }
        let at = Date(timeIntervalSince1970: Double(row[2].integerValue ?? 0) / 1000)
        let payload = try verifier.verifyTransaction(signed, now: at).payload
        let renewal = try row[1].textValue.map { try verifier.verifyRenewalInfo($0, now: at).payload }
        let answer = Answer(
            signedTransaction: signed, transaction: payload, signedRenewalInfo: row[1].textValue, renewalInfo: renewal,
            fromHistory: row[4].integerValue == 1)
        return answer.input(appUserId: row[3].textValue)
    }
}
