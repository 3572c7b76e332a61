import AppStore
import Foundation
import HTTP
import JSON
import Storage
import Subscriptions
import Threads

extension SubscribersAPI {
    /// RevenueCat's `POST /v1/subscribers/{app_user_id}/restore/eligibility` (either key), the
    /// SDK's `isPurchaseAllowedByRestoreBehavior()`: whether a purchase by this Apple account
    /// would be this customer's, given the app's `restoreBehavior`. `{"fetch_token": <the
    /// account's oldest transaction's jwsRepresentation>}`, verified as a posted transaction;
    /// **200** `{"is_purchase_allowed_by_restore_behavior": <bool>}`: false exactly when posting
    /// that transaction for the customer would be refused, the purchase kept with another
    /// customer (409, 7102). Asks the stored state as it is now and changes nothing.
    package func restoreEligibility(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request), let verifier = verifiers[app.id] else {
            return reply(APIKeys.unauthorized)
        }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        if let refused = AppUserIdRule.refusal(appUserId, access: access) { return reply(refused) }
        let shape = #"the body must be {"fetch_token": "<StoreKit 2 jwsRepresentation>"}"#
        guard let json = try? JSONValue(parsingWithoutRepeatedNames: request.body), case .object(let members) = json,
            let token = members["fetch_token"]?.stringValue, UnverifiedPayload.isCompactJWS(token)
        else {
            return reply(RevenueCatError.badRequest.response(status: 400, BodyShape.refusal(request.body, shape: shape)))
        }
        let now = clock()
        let transaction: JWSTransactionDecodedPayload
        do { transaction = try verifier.strict.verifyTransaction(token, now: now).payload } catch {
            return reply(VerificationRefusal.response(error, of: "signed transaction"))
        }
        let input = Ledger.Input.transactionPosted(transaction, appUserId: appUserId)
        guard input.purchaseKey != nil else {
            return reply(.error(status: 422, code: "invalid_transaction", message: "the signed transaction names no purchase"))
        }
        let atMs = UnixTime.milliseconds(now)
        let effects: [Ledger.Effect]
        do {
            effects = try store.read { [store] (rows) throws(StoreError) in
                try StoreError.decoding(stateOf: appUserId) {
                    try LedgerInputs.preview(input, app: app.ledger, anonymousIds: store.anonymousIds, atMs: atMs, from: rows)
                }
            }
        } catch {
            return reply(HTTPResponse.storageFailure(error, access: access))
        }
        let refused = effects.contains(where: \.isLinkRefusal)
        let answer = JSONValue.object(["is_purchase_allowed_by_restore_behavior": .bool(!refused)])
        reply(.json(Data(answer.serialized().utf8)))
    }
}
