import AppStore
import Foundation
import HTTP
import JSON
import Threads

extension SubscribersAPI {
    /// RevenueCat's `POST /v1/offers` (either key): signatures for promotional offers, made with
    /// the app's `inAppPurchaseKey` (`PromotionalOfferSigner`), answered as purchases-ios reads
    /// them (`PostOfferResponse`): per offer `key_id`, `offer_id`, `product_id` and either
    /// `signature_data` (`signature`, `nonce`, `timestamp`) or `signature_error` (RevenueCat's
    /// `{"code", "message"}`: 7234 when the app has no key, 7232 when `fetch_token` shows no
    /// subscription).
    ///
    /// Each signature is for the app account token the StoreKit 2 purchase will carry
    /// (`appAccountToken`). `fetch_token` (required with the public key, which every copy of the
    /// app holds) must verify as this app's transactions (401 otherwise); one of them must be an
    /// auto-renewable subscription, as Apple offers promotional offers to subscribers only. Reads
    /// and stores nothing.
    package func signOffers(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request), let verifier = verifiers[app.id] else {
            return reply(APIKeys.unauthorized)
        }
        let asked: OfferSigningRequest
        switch OfferSigningRequest.read(request.body) {
        case .failure(let refusal): return reply(refusal.response)
        case .success(let read): asked = read
        }
        if let refused = AppUserIdRule.refusal(asked.appUserId, access: access, reaching: true) { return reply(refused) }
        // The public key ships in every copy of the app: with it, a signature is for a subscriber only.
        if access == .publishable, asked.transactions == nil {
            return reply(
                RevenueCatError.badRequest.response(
                    status: 400, "fetch_token is missing: with the public key, an offer is signed for a subscriber's transaction"
                ))
        }
        let now = clock()
        var ineligible: String?
        if let transactions = asked.transactions {
            var subscribed = false
            for signed in transactions {
                let transaction: JWSTransactionDecodedPayload
                do { transaction = try verifier.strict.verifyTransaction(signed, now: now).payload } catch {
                    return reply(VerificationRefusal.response(error, of: "signed transaction"))
                }
                if transaction.type == .autoRenewable, transaction.revocationDate == nil {
                    subscribed = true
                    break
                }
            }
            if !subscribed {
                ineligible = "fetch_token holds no unrefunded auto-renewable subscription: promotional offers are for subscribers"
            }
        }
        let signer = app.inAppPurchaseKey.map {
            PromotionalOfferSigner(key: $0.privateKey, keyId: $0.keyId, bundleId: app.bundleId)
        }
        let token = asked.appAccountToken ?? Self.appAccountToken(for: asked.appUserId)
        let atMs = UnixTime.milliseconds(now)
        let offers = asked.offers.map { offer -> JSONValue in
            var answer: [String: JSONValue] = [
                "key_id": .string(signer?.keyId ?? ""), "offer_id": .string(offer.offerId),
                "product_id": .string(offer.productId), "signature_data": .null, "signature_error": .null,
            ]
            func failure(_ code: RevenueCatError, _ message: String) -> JSONValue {
                .object(["code": .integer(Int64(code.rawValue)), "message": .string(message)])
            }
            if let ineligible {
                answer["signature_error"] = failure(.userIneligibleForPromoOffer, ineligible)
            } else if let signer {
                do {
                    let signed = try signer.sign(
                        productId: offer.productId, offerId: offer.offerId, applicationUsername: token, at: atMs)
                    answer["signature_data"] = .object([
                        "signature": .string(signed.signature), "nonce": .string(signed.nonce.uuidString.lowercased()),
                        "timestamp": .integer(signed.timestampMs),
                    ])
                } catch {
                    // OpenSSL's words are for the operator; the key was checked when the configuration loaded.
                    answer["signature_error"] = failure(.internalServerError, "the offer could not be signed")
                }
            } else {
                answer["signature_error"] = failure(
                    .invalidAppleSubscriptionKey,
                    "app \(app.id) has no inAppPurchaseKey, which signs promotional offers")
            }
            return .object(answer)
        }
        reply(.json(Data(JSONValue.object(["offers": .array(offers)]).serialized().utf8)))
    }

    /// The app account token StoreKit 2 purchases carry for `appUserId` as RevenueCat's SDK
    /// makes them: the id itself, lowercased, when it is a UUID; none ("") otherwise.
    static func appAccountToken(for appUserId: String) -> String {
        UUID(uuidString: appUserId) == nil ? "" : appUserId.lowercased()
    }
}
