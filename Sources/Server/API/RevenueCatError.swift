import AppStore
import Foundation
import HTTP
import JSON

/// Errors of the RevenueCat-compatible paths in RevenueCat's v1 shape, `{"code": <int>,
/// "message": "..."}`, with the codes RevenueCat's SDKs know (purchases-ios
/// `BackendErrorCode`); RevenueDot's own paths keep `{"error": {"code", "message"}}`.
package enum RevenueCatError: Int {
    case storeProblem = 7101
    case cannotTransferPurchase = 7102
    case invalidReceipt = 7103
    case internalServerError = 7110
    case emptyAppUserId = 7220
    case invalidAPIKey = 7225
    case badRequest = 7226
    case userIneligibleForPromoOffer = 7232
    case invalidAppleSubscriptionKey = 7234
    case invalidAppUserId = 7256
    case notFound = 7259
    case invalidSubscriberAttributes = 7263
    case invalidSubscriberAttributesBody = 7264
    case couldNotCreateAlias = 7255
    case requestAlreadyInProgress = 7638
    case purchaseBelongsToOtherUser = 7852

    /// The answer: `status`, `{"code", "message"}`, any `extra` members, and RevenueDot's own
    /// code as `revenuedot_error` (`revenueDotCode` unless `extra` gives one).
    package func response(status: Int, _ message: String, extra: [String: JSONValue] = [:]) -> HTTPResponse {
        var body = extra
        body["code"] = .integer(Int64(rawValue))
        body["message"] = .string(message)
        body["revenuedot_error"] = body["revenuedot_error"] ?? .string(revenueDotCode)
        return .json(Data(JSONValue.object(body).serialized().utf8), status: status)
    }

    /// RevenueDot's code for a refusal made in RevenueCat's terms (`byCode` the other way).
    package var revenueDotCode: String {
        switch self {
        case .storeProblem: "app_store_server_api"
        case .cannotTransferPurchase: "receipt_already_in_use"
        case .invalidReceipt: "invalid_transaction"
        case .internalServerError: "server_error"
        case .emptyAppUserId: "empty_app_user_id"
        case .invalidAPIKey: "unauthorized"
        case .badRequest, .invalidSubscriberAttributesBody: "bad_request"
        case .userIneligibleForPromoOffer: "ineligible_for_offer"
        case .invalidAppleSubscriptionKey: "no_in_app_purchase_key"
        case .invalidAppUserId: "invalid_app_user_id"
        case .notFound: "not_found"
        case .invalidSubscriberAttributes: "invalid_attributes"
        case .couldNotCreateAlias: "cannot_alias"
        case .requestAlreadyInProgress: "busy"
        case .purchaseBelongsToOtherUser: "owned_by_another_customer"
        }
    }
}

extension RevenueCatError {
    /// RevenueDot's error codes on the RevenueCat-compatible paths, and RevenueCat's for them.
    package static let byCode: [String: RevenueCatError] = [
        "unauthorized": .invalidAPIKey, "bad_request": .badRequest, "not_found": .notFound,
        "storage_unavailable": .internalServerError, "stored_state_invalid": .internalServerError,
        "storage_damaged": .internalServerError,
        "receipt_already_in_use": .cannotTransferPurchase, "owned_by_another_customer": .purchaseBelongsToOtherUser,
        "bought_for_another_account": .purchaseBelongsToOtherUser, "transaction_not_found": .notFound,
        "app_store_server_api": .storeProblem, "busy": .requestAlreadyInProgress,
        "no_app_store_server_api": .badRequest, "invalid_transaction": .invalidReceipt,
        "cannot_alias": .couldNotCreateAlias, "empty_app_user_id": .emptyAppUserId,
        "invalid_app_user_id": .invalidAppUserId, "signed_transaction_required": .badRequest,
    ]

    /// `response` in RevenueCat's shape when it is one of RevenueDot's errors (same status,
    /// headers and message, RevenueDot's own code beside RevenueCat's as `revenuedot_error`, which
    /// RevenueCat's SDKs ignore); anything else as it is. A code not in the table is a signed
    /// transaction that did not verify (401: `invalidReceipt`), else a bad request or a
    /// server error by status.
    package static func translate(_ response: HTTPResponse) -> HTTPResponse {
        guard response.status >= 400, let json = try? JSONValue(parsing: response.body), case .object(let error)? = json["error"],
            let code = error["code"]?.stringValue
        else { return response }
        let mapped =
            byCode[code]
            ?? (response.status == 401 ? .invalidReceipt : response.status >= 500 ? .internalServerError : .badRequest)
        var translated = mapped.response(
            status: response.status, error["message"]?.stringValue ?? code, extra: ["revenuedot_error": .string(code)])
        for (name, value) in response.headers where name.lowercased() != "content-length" {
            translated.headers[name] = translated.headers[name] ?? value
        }
        return translated
    }
}

extension RevenueCatError {
    /// Whether `response` is the answer to an attributes write whose valid keys were saved while
    /// RevenueCat's rules refused others (7263).
    package static func partlySavedAttributes(_ response: HTTPResponse) -> Bool {
        response.status == 400
            && (try? JSONValue(parsing: response.body))?["code"] == .integer(Int64(invalidSubscriberAttributes.rawValue))
    }
}
