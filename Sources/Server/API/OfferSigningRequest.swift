import Foundation
import JSON

/// What RevenueCat's SDK posts to `POST /v1/offers` for a promotional offer's signature, read:
/// the customer, the offers to sign, and the signed transactions its `fetch_token` holds, which
/// show the customer has subscribed (promotional offers are for subscribers, past or present).
struct OfferSigningRequest {
    struct Offer: Equatable {
        var offerId: String
        var productId: String
        /// The product's subscription group, as the SDK sends it; not signed.
        var subscriptionGroup: String?
    }

    var appUserId: String
    var offers: [Offer]
    /// `fetch_token`'s signed transactions; nil when it has none.
    var transactions: [String]?
    /// `app_account_token` (RevenueDot's own member): the app account token the purchase will
    /// carry, "" for none; nil leaves it to the app user id (`SubscribersAPI.appAccountToken`).
    var appAccountToken: String?

    /// The most offers one request signs (RevenueCat's SDK asks for one).
    static let maxOffers = 10

    static let shape =
        #"the body must be RevenueCat's offer request: {"app_user_id": "...", "fetch_token": "<StoreKit 2 jwsRepresentation>", "generate_offers": [{"offer_id": "...", "product_id": "...", "subscription_group": "..."}]}"#

    /// The body read, or the answer refusing it.
    static func read(_ body: Data) -> Result<OfferSigningRequest, SubscribersAPI.Refusal> {
        guard let json = try? JSONValue(parsingWithoutRepeatedNames: body), case .object(let members) = json else {
            return .refused(.badRequest, BodyShape.refusal(body, shape: shape))
        }
        let appUserId: String
        switch PostedReceipt.appUserId(in: members) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let id): appUserId = id
        }
        guard case .array(let listed)? = members["generate_offers"], !listed.isEmpty else {
            return .refused(.badRequest, "generate_offers must be a non-empty array: \(shape)")
        }
        guard listed.count <= maxOffers else {
            return .refused(.badRequest, "generate_offers holds \(listed.count) offers; at most \(maxOffers) are signed at once")
        }
        var offers: [Offer] = []
        for (index, entry) in listed.enumerated() {
            guard case .object(let offer) = entry else {
                return .refused(.badRequest, "generate_offers[\(index)] must be an object")
            }
            var strings: [String: String] = [:]
            for name in ["offer_id", "product_id"] {
                guard let value = offer[name]?.stringValue, !value.isEmpty else {
                    return .refused(.badRequest, "generate_offers[\(index)].\(name) must be a non-empty string")
                }
                strings[name] = value
            }
            let group: String?
            switch offer["subscription_group"] {
            case nil, .null?: group = nil
            case .string(let value)?: group = value
            default: return .refused(.badRequest, "generate_offers[\(index)].subscription_group must be a string")
            }
            offers.append(Offer(offerId: strings["offer_id"]!, productId: strings["product_id"]!, subscriptionGroup: group))
        }
        var request = OfferSigningRequest(appUserId: appUserId, offers: offers)
        switch PostedReceipt.fetchToken(members["fetch_token"]) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let signed): request.transactions = signed
        }
        switch members["app_account_token"] {
        case nil, .null?: break
        case .string("")?: request.appAccountToken = ""
        case .string(let token)? where UUID(uuidString: token) != nil: request.appAccountToken = token.lowercased()
        default: return .refused(.badRequest, "app_account_token must be a UUID, or empty for a purchase without one")
        }
        return .success(request)
    }
}
