import AppStore
import Crypto
import Foundation
import JSON

/// What RevenueCat's SDK posts to `POST /v1/receipts`, read: the customer, the signed
/// transactions its `fetch_token` holds, its `AppTransaction`, its attributes, the offering the
/// purchase was made from and whether it is a restore. The SDK's other members (price, currency,
/// paywall, ...) change nothing here and are not read.
struct PostedReceipt {
    var appUserId: String
    /// The signed transactions to post, in order.
    var transactions: [String]
    var appTransaction: String?
    /// `is_restore`: a restore (or a sync), which stands for every purchase of the Apple account.
    var isRestore = false
    /// RevenueCat's attributes object, its shape checked (`SubscribersAPI.attributes(in:)`).
    var attributes: [String: JSONValue]?
    /// `presented_offering_identifier`, for the transactions of `product_id` (every one when the
    /// body names no product and the token holds one transaction; none when it holds several);
    /// nil for one `PresentedOffering.read` refuses.
    var offering: PresentedOffering?

    static let shape =
        #"the body must be RevenueCat's receipt: {"app_user_id": "...", "fetch_token": "<StoreKit 2 jwsRepresentation>", "app_transaction": "<AppTransaction jwsRepresentation>", "attributes": {...}}"#

    /// The body read, or the answer refusing it.
    static func read(_ body: Data, defaultTimeMs: Int64) -> Result<PostedReceipt, SubscribersAPI.Refusal> {
        guard let json = try? JSONValue(parsingWithoutRepeatedNames: body), case .object(let members) = json else {
            return .refused(.badRequest, BodyShape.refusal(body, shape: shape))
        }
        let appUserId: String
        switch Self.appUserId(in: members) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let id): appUserId = id
        }
        var receipt = PostedReceipt(appUserId: appUserId, transactions: [])
        receipt.isRestore = members["is_restore"] == .bool(true)
        switch fetchToken(members["fetch_token"]) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let signed): receipt.transactions = signed ?? []
        }
        // A malformed offering is left out rather than refused: RevenueCat's SDK takes a 4xx as
        // final and finishes the transaction, which RevenueDot would then never have stored.
        switch PresentedOffering.read(members["presented_offering_identifier"], name: "presented_offering_identifier") {
        case .none, .refused: break
        case .offering(let id):
            let productId = members["product_id"]?.stringValue
            if productId != nil || receipt.transactions.count == 1 {
                receipt.offering = PresentedOffering(id: id, productId: productId)
            }
        }
        switch members["app_transaction"] {
        case nil, .null?: break
        case .string(let signed)? where UnverifiedPayload.isCompactJWS(signed): receipt.appTransaction = signed
        default: return .refused(.badRequest, "app_transaction must be the AppTransaction's jwsRepresentation")
        }
        switch members["attributes"] {
        case nil, .null?: break
        case .object(let attributes)?:
            if case .failure(let refusal) = SubscribersAPI.attributes(attributes, defaultTimeMs: defaultTimeMs) {
                return .failure(refusal)
            }
            if !attributes.isEmpty { receipt.attributes = attributes }
        default: return .refused(.badRequest, "attributes must be an object of RevenueCat's attributes")
        }
        return .success(receipt)
    }

    /// `app_user_id` of a RevenueCat body: a string, not empty (7220 when it is or is left out).
    static func appUserId(in members: [String: JSONValue]) -> Result<String, SubscribersAPI.Refusal> {
        if let appUserId = members["app_user_id"]?.stringValue, !appUserId.isEmpty { return .success(appUserId) }
        if let given = members["app_user_id"], given.stringValue == nil, given != .null {
            return .refused(.badRequest, "app_user_id must be a string")
        }
        return .refused(.emptyAppUserId, "app_user_id is empty.")
    }

    /// The signed transactions a `fetch_token` member holds (nil when there is none), or the
    /// answer refusing it: a StoreKit 1 receipt (422, 7103), anything else (400, 7226).
    static func fetchToken(_ member: JSONValue?) -> Result<[String]?, SubscribersAPI.Refusal> {
        switch member {
        case nil, .null?: return .success(nil)
        case .string(let token)?:
            switch transactions(in: token) {
            case .signed(let signed): return .success(signed)
            case .storeKit1: return .refused(.invalidReceipt, status: 422, storeKit1Receipt)
            case .unreadable: return .refused(.badRequest, unreadableToken)
            }
        default: return .refused(.badRequest, "fetch_token must be a string")
        }
    }

    /// Why a StoreKit 1 receipt is refused (RevenueCat's 7103, 422).
    static let storeKit1Receipt =
        "a StoreKit 1 receipt: RevenueDot reads StoreKit 2 transactions, so configure RevenueCat's SDK "
        + "with storeKitVersion .storeKit2"
    static let unreadableToken = "fetch_token is neither a StoreKit 2 jwsRepresentation nor the SDK's StoreKit 2 receipt"

    /// What a `fetch_token` holds.
    enum Token: Equatable {
        case signed([String])
        case storeKit1
        case unreadable
    }

    /// A transaction's JWS; the SDK's StoreKit 2 receipt (its JSON in base64, whose
    /// `transactions` are JWS: StoreKit testing in Xcode); or an App Store receipt (PKCS #7, a
    /// DER SEQUENCE, in base64).
    static func transactions(in token: String) -> Token {
        if UnverifiedPayload.isCompactJWS(token) { return .signed([token]) }
        guard let decoded = Base64.decode(token, alphabet: .standard), let first = decoded.first else { return .unreadable }
        if first == 0x30 { return .storeKit1 }
        guard let json = try? JSONValue(parsingWithoutRepeatedNames: decoded), case .array(let listed)? = json["transactions"]
        else { return .unreadable }
        let signed = listed.compactMap(\.stringValue).filter(UnverifiedPayload.isCompactJWS)
        return signed.count == listed.count ? .signed(signed) : .unreadable
    }
}
