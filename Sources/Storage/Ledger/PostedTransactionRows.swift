import AppStore
import Crypto
import Foundation
import JSON

/// The transactions apps post (`POST /v1/subscribers/{id}/transactions`), stored once per change.
///
/// An app posts a purchase each time it launches, and anyone holding the public API key can post
/// one JWS thousands of times: a post whose transaction's latest row names the same customer
/// and the same content (`contentDigest`) changes nothing while the poster owns the purchase,
/// or while the rules refuse the link again (`LedgerInputs.keepAndApply` asks them), and is not
/// stored again. A post by another customer (a transfer), with new content (a refund Apple
/// signed since), by the owner naming another offering than its last, for a purchase nobody
/// owns any more (its customer was deleted), or one the rules now allow (the owner's
/// subscription has lapsed since, the restore behaviour changed) is.
public enum PostedTransactionRows {
    /// SHA-256 (hex) of the transaction's payload without `signedDate` and the device's
    /// `deviceVerification` and `deviceVerificationNonce`, members sorted: the same transaction
    /// signed again by App Store, for any of the customer's devices, gives the same digest.
    public static func contentDigest(_ payloadJSON: Data) throws -> String {
        var payload = try JSONValue(parsing: payloadJSON)
        for member in ["signedDate", "deviceVerification", "deviceVerificationNonce"] { payload[member] = nil }
        return Digest.hex(Digest.sha256(Array(payload.serialized().utf8)))
    }

    /// What a post is to the transaction's stored posts.
    public enum Repetition: Equatable, Sendable {
        /// Not a repeat: another customer, other content, or a purchase nobody owns.
        case new
        /// The transaction's latest post again, and the poster owns the purchase.
        case ownersAgain
        /// The transaction's latest post again, and another customer owns the purchase: the
        /// link was refused, and is refused again unless the rules have changed their answer.
        case refusedAgain
    }

    /// Whether the post repeats the transaction's latest post (same customer, same content) and
    /// who owns `purchaseKey`'s purchase (`LedgerRows.key`) now. The owner's repost naming an
    /// offering other than the last one its posts of the transaction named is news: the app may
    /// post a purchase before it says its offering (a transaction listener, then the purchase
    /// flow), or from another device.
    public static func repetition(
        app: String, appUserId: String, transactionId: String, purchaseKey: String?, digest: String,
        presentedOfferingId: String? = nil, in rows: WriteTransaction
    ) throws -> Repetition {
        let latest = try rows.query(
            "SELECT app_user_id, content_digest FROM posted_transactions WHERE app_id = ? AND transaction_id = ? ORDER BY id DESC LIMIT 1",
            [.text(app), .text(transactionId)])
        guard let row = latest.first, row[0].textValue == appUserId, row[1].textValue == digest, let purchaseKey,
            let owner = try rows.query(
                "SELECT owner FROM purchases WHERE app_id = ? AND purchase_key = ? AND owner IS NOT NULL",
                [.text(app), .text(purchaseKey)]
            ).first?.first?.textValue
        else { return .new }
        guard try CustomerRows.customerId(of: appUserId, appId: app, from: rows) == owner else { return .refusedAgain }
        guard let presentedOfferingId else { return .ownersAgain }
        let said = try rows.query(
            """
            SELECT presented_offering_id FROM posted_transactions
            WHERE app_id = ? AND transaction_id = ? AND app_user_id = ? AND presented_offering_id IS NOT NULL
            ORDER BY id DESC LIMIT 1
            """, [.text(app), .text(transactionId), .text(appUserId)]
        ).first?.first?.textValue
        return said == presentedOfferingId ? .ownersAgain : .new
    }

    /// Stores the post and returns its row id.
    public static func insert(
        app: String, appUserId: String, transactionId: String, signed: String, digest: String,
        presentedOfferingId: String?, atMs: Int64, in rows: WriteTransaction
    ) throws(StoreError) -> Int64 {
        return try rows.insert(
            returningId: """
                INSERT INTO posted_transactions
                    (app_id, app_user_id, transaction_id, signed_transaction, received_at, content_digest, presented_offering_id)
                VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
            [
                .text(app), .text(appUserId), .text(transactionId), .text(signed), .integer(atMs), .text(digest),
                SQLValue(presentedOfferingId),
            ])
    }
}
