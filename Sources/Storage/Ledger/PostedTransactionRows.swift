import AppStore
import Crypto
import Foundation
import JSON

/// The transactions apps post (`POST /v1/subscribers/{id}/transactions`), stored once per change.
///
/// An app posts a purchase each time it launches, and anyone holding the public API key can post
/// one JWS thousands of times: a post whose transaction's latest row names the same customer
/// and the same content (`contentDigest`), for a purchase someone owns, would change nothing
/// (the poster owns it, or its owner refused the link, as it will again), and is not stored
/// again. A post by another customer (a transfer), with new content (a refund Apple signed
/// since), or for a purchase nobody owns any more (its customer was deleted) is. A link refused
/// under a restore behaviour changed since is applied again once the content or poster changes.
public enum PostedTransactionRows {
    /// SHA-256 (hex) of the transaction's payload without `signedDate`, members sorted: the same
    /// transaction signed again by App Store gives the same digest.
    public static func contentDigest(_ payloadJSON: Data) throws -> String {
        var payload = try JSONValue(parsing: payloadJSON)
        payload["signedDate"] = nil
        return Digest.hex(Digest.sha256(Array(payload.serialized().utf8)))
    }

    /// Stores the post and returns its row id, or nil when it repeats the transaction's latest post
    /// and `purchaseKey`'s purchase (`LedgerRows.key`) has an owner.
    public static func insert(
        app: String, appUserId: String, transactionId: String, purchaseKey: String?, signed: String, digest: String,
        atMs: Int64, in rows: WriteTransaction
    ) throws(StoreError) -> Int64? {
        let latest = try rows.query(
            "SELECT app_user_id, content_digest FROM posted_transactions WHERE app_id = ? AND transaction_id = ? ORDER BY id DESC LIMIT 1",
            [.text(app), .text(transactionId)])
        if let row = latest.first, row[0].textValue == appUserId, row[1].textValue == digest, let purchaseKey {
            let owned = try rows.query(
                "SELECT 1 FROM purchases WHERE app_id = ? AND purchase_key = ? AND owner IS NOT NULL",
                [.text(app), .text(purchaseKey)])
            if !owned.isEmpty { return nil }
        }
        return try rows.insert(
            returningId: """
                INSERT INTO posted_transactions (app_id, app_user_id, transaction_id, signed_transaction, received_at, content_digest)
                VALUES (?, ?, ?, ?, ?, ?) RETURNING id
                """, [.text(app), .text(appUserId), .text(transactionId), .text(signed), .integer(atMs), .text(digest)])
    }
}
