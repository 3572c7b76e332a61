import AdvancedCommerce
import AppStore
import Foundation
import HTTP
import JSON
import Storage

/// `POST /v1/advanced-commerce/{appId}/requests` and `GET …/requests/{requestReferenceId}` (secret key).
///
/// The POST takes `{"app_user_id": "...", "request": {...}}`, checks the request against Apple's
/// rules and the customer's live subscription, signs it with the app's In-App Purchase key and
/// answers `{"token", "requestReferenceId", "advancedCommerceData": {"signatureInfo": {"token"}}}`
/// (the last is what the app passes to StoreKit), or 422 with Apple's error name and code.
package struct CommerceAPI: Sendable {
    package let keys: APIKeys
    package let store: Store
    package let clock: @Sendable () -> Date

    /// The app the path names, for its secret key; or the answer to give instead.
    private enum Access {
        case granted(AppConfig)
        case refused(HTTPResponse)
    }

    /// 404 for an app that is not configured, whatever the key (as the notification route
    /// answers), 401 without that app's secret key.
    private func access(_ request: HTTPRequest) -> Access {
        let appId = request.pathParameters["appId"] ?? ""
        guard keys.configures(appId: appId) else {
            return .refused(Routes.response(for: .unknownApp(appId)))
        }
        guard let (app, access) = keys.authenticate(request), access == .secret, app.id == appId else {
            return .refused(APIKeys.secretKeyRequired)
        }
        return .granted(app)
    }

    package func create(_ request: HTTPRequest) -> HTTPResponse {
        let app: AppConfig
        switch access(request) {
        case .granted(let granted): app = granted
        case .refused(let answer): return answer
        }
        // A member given twice is refused, as `revenuedot commerce` refuses it in a request file:
        // which of the two would be signed is not for the parser to pick.
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsingWithoutRepeatedNames: request.body)
        } catch let repeated as JSONValue.RepeatedName {
            if repeated.path.hasPrefix("request.") {
                return Self.unprocessable([InAppRequest.repeated(String(repeated.path.dropFirst("request.".count)))])
            }
            return .error(status: 400, code: "bad_request", message: "\(repeated.path) is given twice")
        } catch {
            return .error(status: 400, code: "bad_request", message: "the body is not JSON: \(error)")
        }
        guard let user = parsed["app_user_id"]?.stringValue, !user.isEmpty,
            let inner = parsed["request"], case .object = inner
        else {
            return .error(
                status: 400, code: "bad_request", message: #"the body must be {"app_user_id": "...", "request": {...}}"#)
        }
        if let refused = AppUserIdRule.refusal(user, access: .secret) { return refused }
        do {
            let outcome = try CommerceRequests(app: app, reads: store, clock: clock)
                .prepare(Data(inner.serialized().utf8), for: user, signingInto: store)
            switch outcome {
            case .invalid(let errors): return Self.unprocessable(errors)
            case .valid(let signed, let token):
                return .json(Data(Self.signedBody(signed, token: token ?? "").serialized().utf8))
            }
        } catch let failure as CommerceRequests.Failure {
            if case .noKey = failure {
                return .error(status: 409, code: "no_in_app_purchase_key", message: failure.description)
            }
            return .error(status: 503, code: "storage_unavailable", message: failure.description)
        } catch {
            return .error(status: 500, code: "signing_failed", message: "\(error)")
        }
    }

    /// What a signed request is answered with: `{"token", "requestReferenceId",
    /// "advancedCommerceData": {"signatureInfo": {"token"}}}` (the last for StoreKit).
    package static func signedBody(_ request: InAppRequest, token: String) -> JSONValue {
        .object([
            "token": .string(token), "requestReferenceId": .string(request.requestReferenceId ?? ""),
            "advancedCommerceData": .object(["signatureInfo": .object(["token": .string(token)])]),
        ])
    }

    /// The lines `ValidationError` gives for each error of a 422 answer (`unprocessable`).
    package static func errorLines(_ answer: JSONValue) -> [String] {
        (answer["errors"]?.arrayValue ?? []).map { (error: JSONValue) -> String in
            var code = 0
            if case .integer(let number)? = error["appleErrorCode"] { code = Int(number) }
            return ValidationError.line(
                name: error["code"]?.stringValue ?? "", code: code, field: error["field"]?.stringValue ?? "",
                message: error["message"]?.stringValue ?? "")
        }
    }

    /// 422 with the first of Apple's errors in `error`, and all of them in `errors`.
    package static func unprocessable(_ errors: [ValidationError]) -> HTTPResponse {
        func json(_ error: ValidationError) -> JSONValue {
            .object([
                "code": .string(error.name), "appleErrorCode": .integer(Int64(error.code)), "message": .string(error.message),
                "field": .string(error.field),
            ])
        }
        let body = JSONValue.object(["error": errors.first.map(json) ?? .null, "errors": .array(errors.map(json))])
        return .json(Data(body.serialized().utf8), status: 422)
    }

    package func show(_ request: HTTPRequest) -> HTTPResponse {
        let app: AppConfig
        switch access(request) {
        case .granted(let granted): app = granted
        case .refused(let answer): return answer
        }
        let reference = (request.pathParameters["requestReferenceId"] ?? "").lowercased()
        let row: StoredCommerceRequest?
        do {
            row = try store.read { (rows) throws(StoreError) in
                try CommerceRequestRows.find(appId: app.id, reference: reference, from: rows)
            }
        } catch {
            return .storageFailure(error, access: .secret)
        }
        guard let found = row else {
            return .error(status: 404, code: "not_found", message: "no request \(reference) for app \(app.id)")
        }
        let body = JSONValue.object([
            "requestReferenceId": .string(reference), "app_user_id": .string(found.appUserId),
            "operation": .string(found.operation),
            "request": (try? JSONValue(parsing: Data(found.requestJSON.utf8))) ?? .null,
            "status": .string(found.status),
            "transactionId": found.transactionId.map(JSONValue.string) ?? .null,
            "createdAtMs": .integer(found.createdAtMs),
            "completedAtMs": found.completedAtMs.map(JSONValue.integer) ?? .null,
        ])
        return .json(Data(body.serialized().utf8))
    }
}
