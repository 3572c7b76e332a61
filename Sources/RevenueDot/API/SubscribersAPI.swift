import AppStore
import AppStoreServerAPI
import Foundation
import HTTP
import Storage
import Subscriptions

/// `GET /v1/subscribers/{app_user_id}` and `POST /v1/subscribers/{app_user_id}/transactions`.
///
/// https://www.revenuecat.com/docs/api-v1 (the v1 subscriber shape RevenueDot stays compatible with)
struct SubscribersAPI: Sendable {
    let keys: APIKeys
    let verifiers: [String: AppVerifiers]
    let store: SQLiteStore
    /// What the store keeps decoded (`LedgerCache`), shared with ingest.
    var cache: LedgerCache?
    let clock: @Sendable () -> Date
    /// Asks Apple for a transaction the app names by its id; nil where there is no Apple.
    var appleLookups: AppleTransactionLookups? = nil

    /// What this customer has now; an unknown customer gets an empty subscriber, as RevenueCat does.
    func subscriber(_ request: HTTPRequest) -> HTTPResponse {
        guard let (app, _) = keys.authenticate(request) else { return APIKeys.unauthorized }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        guard !appUserId.isEmpty else { return .error(status: 400, code: "bad_request", message: "app_user_id is empty") }
        do {
            let found = try store.read { (rows) throws(StoreError) -> (CustomerState, [PurchaseView])? in
                do { return try LedgerRows.customerView(appUserId, app: app, from: rows) } catch let error as StoreError {
                    throw error
                } catch {
                    throw StoreError(.corrupt, "stored state of \(appUserId) does not decode: \(error)")
                }
            }
            let body = SubscriberInfo.body(
                for: appUserId, customer: found?.0, purchases: found?.1 ?? [], entitlements: app.entitlements, at: clock())
            return .json(Data(body))
        } catch  where error.code == .corrupt {
            // Retrying cannot help: the row needs repair (or `replay`), not the client's patience.
            return .error(status: 500, code: "stored_state_invalid", message: "\(error)")
        } catch {
            return .error(status: 503, code: "storage_unavailable", message: "\(error)")
        }
    }

    /// Links a StoreKit 2 transaction (its `jwsRepresentation`) to the customer, applies it, and
    /// answers with the customer as `GET` would. Deferred: the worker verifies, then serves other
    /// connections while the commit is on its way; the answer is read once the commit is on disk,
    /// off the store's flusher thread.
    func postTransaction(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, _) = keys.authenticate(request), let verifier = verifiers[app.id] else {
            return reply(APIKeys.unauthorized)
        }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        guard !appUserId.isEmpty else {
            return reply(.error(status: 400, code: "bad_request", message: "app_user_id is empty"))
        }
        let body = try? JSONValue(parsing: request.body)
        if let signed = body?["signedTransaction"]?.stringValue {
            return link(signed, app: app, verifier: verifier, appUserId: appUserId, request: request, reply: reply)
        }
        if let transactionId = body?["transactionId"]?.stringValue {
            return linkById(transactionId, app: app, verifier: verifier, appUserId: appUserId, request: request, reply: reply)
        }
        reply(
            .error(
                status: 400, code: "bad_request",
                message: #"the body must be {"signedTransaction": "<jwsRepresentation>"} or {"transactionId": "<id>"}"#))
    }

    /// Verifies the signed transaction, links it to the customer and applies it.
    ///
    /// `allowTransfer` false refuses (409) a purchase another customer owns: a transaction id
    /// proves nothing about who holds the purchase, a signed transaction from the device does.
    func link(
        _ signed: String, app: AppConfig, verifier: AppVerifiers, appUserId: String, request: HTTPRequest,
        allowTransfer: Bool = true, reply: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        let now = clock()
        let verified: VerifiedPayload<JWSTransactionDecodedPayload>
        do {
            verified = try verifier.strict.verifyTransaction(signed, now: now)
        } catch {
            return reply(.error(status: 401, code: error.status.rawValue, message: error.detail))
        }
        let transaction = verified.payload
        // Signed, but nothing to link: a purchase is known by these (it was answered 200 and linked nothing).
        for (name, value) in [
            ("transactionId", transaction.transactionId), ("originalTransactionId", transaction.originalTransactionId),
        ] where value?.isEmpty ?? true {
            return reply(
                .error(status: 422, code: "invalid_transaction", message: "the signed transaction has no \(name)"))
        }
        let atMs = UnixTime.milliseconds(now)
        let transactionId = transaction.transactionId ?? ""
        let digest: String
        do { digest = try PostedTransactionRows.contentDigest(verified.json) } catch {
            return reply(.error(status: 400, code: "bad_request", message: "the signed transaction is not a JSON object"))
        }
        let refusal = Locked<HTTPResponse?>(nil)
        store.write(
            { transactionRows in
                if !allowTransfer,
                    let refused = try Self.refusalByIdOnly(transaction, app: app, appUserId: appUserId, rows: transactionRows)
                {
                    refusal.withLock { $0 = refused }
                    return
                }
                guard
                    let id = try PostedTransactionRows.insert(
                        app: app.id, appUserId: appUserId, transactionId: transactionId, signed: signed, digest: digest,
                        atMs: atMs, in: transactionRows)
                else { return }  // The same post again: nothing changes, the customer is answered as is.
                try LedgerInputs.apply(
                    .transactionPosted(transaction, appUserId: appUserId), app: app, atMs: atMs, cache: cache,
                    in: transactionRows)
                try LedgerInputs.log(kind: "posted_transaction", ref: String(id), app: app, atMs: atMs, in: transactionRows)
            },
            completion: { result in
                if case .failure(let error) = result {
                    return reply(.error(status: 503, code: "storage_unavailable", message: "\(error)"))
                }
                if let refused = refusal.value { return reply(refused) }
                DispatchQueue.global().async { reply(subscriber(request)) }
            })
    }

    /// Why a purchase named by its id alone may not be linked to `appUserId`: another customer
    /// owns it, or it was bought for another account (its `appAccountToken`, which the app set
    /// at purchase, names someone else). Nil when it may.
    static func refusalByIdOnly(
        _ transaction: JWSTransactionDecodedPayload, app: AppConfig, appUserId: String, rows: some RowReader
    ) throws -> HTTPResponse? {
        if let owner = try owner(of: transaction, app: app, from: rows) {
            guard owner != appUserId else { return nil }
            return .error(
                status: 409, code: "owned_by_another_customer",
                message:
                    "this purchase belongs to another customer: post the signed transaction (jwsRepresentation) from the device to move it"
            )
        }
        if let token = transaction.appAccountToken, !token.isEmpty, token.lowercased() != appUserId.lowercased() {
            return .error(
                status: 409, code: "bought_for_another_account",
                message: "this purchase carries another appAccountToken: post the signed transaction from the device to link it")
        }
        return nil
    }

    /// Who owns the purchase of `transaction` now, nil when nobody does.
    static func owner(of transaction: JWSTransactionDecodedPayload, app: AppConfig, from rows: some RowReader) throws -> String? {
        let input = Ledger.Input.transactionPosted(transaction, appUserId: "")
        let ledger = try LedgerRows.slice(for: input, app: app, from: rows).ledger
        switch input.purchaseKey {
        case .subscription(let id)?: return ledger.subscriptions[id]?.journal.ownerAppUserId
        case .oneTime(let id)?: return ledger.oneTimePurchases[id]?.journal.ownerAppUserId
        case nil: return nil
        }
    }
}
