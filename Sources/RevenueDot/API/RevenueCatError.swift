import AppStore
import Foundation
import HTTP

/// Errors of the RevenueCat-compatible paths in RevenueCat's v1 shape, `{"code": <int>,
/// "message": "..."}`, with the codes RevenueCat's SDKs know (purchases-ios
/// `BackendErrorCode`); RevenueDot's own paths keep `{"error": {"code", "message"}}`.
enum RevenueCatError: Int {
    case cannotTransferPurchase = 7102
    case emptyAppUserId = 7220
    case invalidAPIKey = 7225
    case badRequest = 7226
    case invalidAppUserId = 7256
    case notFound = 7259
    case invalidSubscriberAttributes = 7263
    case invalidSubscriberAttributesBody = 7264
    case secretKeyRequired = 7243

    /// The answer: `status`, `{"code", "message"}` and any `extra` members.
    func response(status: Int, _ message: String, extra: [String: JSONValue] = [:]) -> HTTPResponse {
        var body = extra
        body["code"] = .integer(Int64(rawValue))
        body["message"] = .string(message)
        return .json(Data(JSONValue.object(body).serialized().utf8), status: status)
    }
}
