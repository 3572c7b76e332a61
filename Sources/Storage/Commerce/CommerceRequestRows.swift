import AppStore
import Subscriptions

/// A signed Advanced Commerce request as `commerce_requests` keeps it.
public struct StoredCommerceRequest: Sendable, Equatable {
    public var appUserId: String
    /// `InAppRequest.operation`.
    public var operation: String
    /// The request as signed (JSON).
    public var requestJSON: String
    /// The signed token given to the app.
    public var token: String
    /// `pending` until Apple reports a transaction carrying its reference, then `completed`.
    public var status: String
    public var transactionId: String?
    public var createdAtMs: Int64
    public var completedAtMs: Int64?

    public var isPending: Bool { status == "pending" }

    public init(
        appUserId: String, operation: String, requestJSON: String, token: String, status: String = "pending",
        transactionId: String? = nil, createdAtMs: Int64, completedAtMs: Int64? = nil
    ) {
        self.appUserId = appUserId
        self.operation = operation
        self.requestJSON = requestJSON
        self.token = token
        self.status = status
        self.transactionId = transactionId
        self.createdAtMs = createdAtMs
        self.completedAtMs = completedAtMs
    }
}

/// The rows of `commerce_requests`: every signed request by its `requestReferenceId`, used once
/// per app; completed in the transaction that applies what Apple reports of it.
public enum CommerceRequestRows {
    /// The request `appId` signed under `reference`, if any.
    public static func find(appId: String, reference: String, from rows: some RowReader) throws(StoreError)
        -> StoredCommerceRequest?
    {
        try rows.query(
            """
            SELECT app_user_id, operation, request_json, token, status, transaction_id, created_at, completed_at
            FROM commerce_requests WHERE app_id = ? AND request_reference_id = ?
            """, [.text(appId), .text(reference)]
        ).first.map { row in
            StoredCommerceRequest(
                appUserId: row[0].textValue ?? "", operation: row[1].textValue ?? "", requestJSON: row[2].textValue ?? "",
                token: row[3].textValue ?? "", status: row[4].textValue ?? "", transactionId: row[5].textValue,
                createdAtMs: row[6].integerValue ?? 0, completedAtMs: row[7].integerValue)
        }
    }

    /// Stores a signed request as pending under `reference`; false when the reference was taken
    /// (the unique key decides, so two nodes or threads racing for one reference get one winner).
    public static func insertPending(
        _ request: StoredCommerceRequest, appId: String, reference: String, in transaction: WriteTransaction
    ) throws(StoreError) -> Bool {
        try transaction.execute(
            """
            INSERT INTO commerce_requests (app_id, request_reference_id, app_user_id, operation, request_json, token, status, created_at)
            VALUES (?, ?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT DO NOTHING
            """,
            [
                .text(appId), .text(reference), .text(request.appUserId), .text(request.operation), .text(request.requestJSON),
                .text(request.token), .integer(request.createdAtMs),
            ]) > 0
    }

    /// Completes the pending requests whose reference the transaction or renewal info of `input` carries.
    static func complete(after input: Ledger.Input, appId: String, atMs: Int64, in transaction: WriteTransaction) throws {
        let (signed, renewal): (JWSTransactionDecodedPayload?, JWSRenewalInfoDecodedPayload?) =
            switch input {
            case .notificationReceived(let facts): (facts.transaction, facts.renewalInfo)
            case .transactionPosted(let posted, _, _): (posted, nil)
            case .appleAnswered(let answered, let renewalInfo, _): (answered, renewalInfo)
            case .appleHistory(let answered, _): (answered, nil)
            case .linked, .timerFired, .customerAction: (nil, nil)
            }
        let references = [signed?.advancedCommerceInfo?.requestReferenceId, renewal?.advancedCommerceInfo?.requestReferenceId]
        // New requests are kept under a lower-case reference; one signed before that, as sent.
        for reference in Set(references.compactMap { $0 }.flatMap { [$0, $0.lowercased()] }) {
            try transaction.write(
                """
                UPDATE commerce_requests SET status = 'completed', transaction_id = ?, completed_at = ?
                WHERE app_id = ? AND request_reference_id = ? AND status = 'pending'
                """,
                [
                    signed?.transactionId.map(SQLValue.text) ?? .null, .integer(atMs), .text(appId), .text(reference),
                ])
        }
    }
}
