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
    /// Fetches a transaction the app names by its id from Apple (Get Transaction Info): the JWS
    /// Apple signed, verified. Nil in tests that have no Apple.
    var fetchTransaction: (@Sendable (AppConfig, String) throws -> String)? = nil

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
        guard let transactionId = body?["transactionId"]?.stringValue, !transactionId.isEmpty,
            transactionId.utf8.count <= 64
        else {
            return reply(
                .error(
                    status: 400, code: "bad_request",
                    message: #"the body must be {"signedTransaction": "<jwsRepresentation>"} or {"transactionId": "<id>"}"#))
        }
        guard let fetchTransaction, app.inAppPurchaseKey != nil else {
            return reply(
                .error(
                    status: 409, code: "no_app_store_server_api",
                    message: "app \"\(app.id)\" has no inAppPurchaseKey to ask Apple for a transaction by its id"))
        }
        // Apple may take seconds (and retries): not on the server's worker.
        DispatchQueue.global().async {
            let signed: String
            do { signed = try fetchTransaction(app, transactionId) } catch let failure as AppStoreServerAPIError {
                return reply(Self.answer(to: failure, transactionId: transactionId))
            } catch {
                return reply(.error(status: 502, code: "app_store_server_api", message: "\(error)"))
            }
            link(signed, app: app, verifier: verifier, appUserId: appUserId, request: request, reply: reply)
        }
    }

    /// What the app is told when Apple could not give the transaction.
    static func answer(to failure: AppStoreServerAPIError, transactionId: String) -> HTTPResponse {
        if failure.status == 404 || failure.code == .transactionIdNotFound || failure.code == APIErrorCode(4_000_006) {
            return .error(status: 404, code: "transaction_not_found", message: "Apple knows no transaction \(transactionId)")
        }
        if case .verification(let error) = failure.kind {
            return .error(status: 502, code: error.status.rawValue, message: "\(failure)")
        }
        return .error(status: 502, code: "app_store_server_api", message: "\(failure)")
    }

    /// Verifies the signed transaction, links it to the customer and applies it.
    private func link(
        _ signed: String, app: AppConfig, verifier: AppVerifiers, appUserId: String, request: HTTPRequest,
        reply: @escaping @Sendable (HTTPResponse) -> Void
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
        store.write(
            { transactionRows in
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
                DispatchQueue.global().async { reply(subscriber(request)) }
            })
    }
}
