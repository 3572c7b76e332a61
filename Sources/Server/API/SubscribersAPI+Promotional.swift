import AppStore
import Foundation
import HTTP
import JSON
import Storage
import Subscriptions
import Threads

extension SubscribersAPI {
    /// `POST /v1/subscribers/{id}/entitlements/{entitlement}/promotional` (secret key), in
    /// RevenueCat's shape: `{"duration": "monthly"}` (daily … yearly, lifetime) from now, or from
    /// `start_time_ms` (even one ahead); or `{"end_time_ms": ...}`. The grant is active at once;
    /// 201 and the customer. The entitlement must be configured.
    package func grantPromotional(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access, appUserId, entitlement) = promotionalTarget(request, reply: reply) else { return }
        let now = UnixTime.milliseconds(clock())
        switch Self.grant(of: entitlement, in: request.body, nowMs: now) {
        case .failure(let refusal): reply(.error(status: 400, code: "bad_request", message: refusal.message))
        case .success(let grant):
            apply(
                .promotionalGranted(appUserId: appUserId, grant), app: app, atMs: now, answering: appUserId, access: access,
                status: 201, reply: reply)
        }
    }

    /// `POST /v1/subscribers/{id}/entitlements/{entitlement}/revoke_promotionals` (secret key):
    /// every grant of the entitlement still running ends now. 200 and the customer; 404, with
    /// nothing stored, for a customer nobody knows.
    package func revokePromotionals(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access, appUserId, entitlement) = promotionalTarget(request, reply: reply),
            isKnown(appUserId, app: app, access: access, reply: reply)
        else { return }
        apply(
            .promotionalsRevoked(appUserId: appUserId, entitlementId: entitlement), app: app,
            atMs: UnixTime.milliseconds(clock()), answering: appUserId, access: access, reply: reply)
    }

    /// The app, customer and configured entitlement a promotional request names, or nil (then
    /// `reply` was answered: 401 without the secret key, 404 for an entitlement not configured).
    private func promotionalTarget(_ request: HTTPRequest, reply: @Sendable (HTTPResponse) -> Void) -> (
        AppConfig, APIKeys.Access, String, String
    )? {
        guard let (app, access) = secretKeyApp(request, reply: reply) else { return nil }
        let entitlement = request.pathParameters["entitlement"] ?? ""
        guard app.entitlements[entitlement] != nil else {
            reply(.error(status: 404, code: "not_found", message: "no entitlement \"\(entitlement)\" is configured"))
            return nil
        }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        if let refused = AppUserIdRule.refusal(appUserId, access: access) {
            reply(refused)
            return nil
        }
        return (app, access, appUserId, entitlement)
    }

    package struct GrantRefusal: Error {
        package var message: String
    }

    /// The members a grant's body may have, RevenueCat's.
    static let grantMembers: Set<String> = ["duration", "start_time_ms", "end_time_ms"]

    /// The grant a request body asks for.
    package static func grant(of entitlement: String, in body: Data, nowMs: Int64) -> Result<PromotionalGrant, GrantRefusal> {
        let shape =
            #"the body must be {"duration": "daily|three_day|weekly|two_week|monthly|two_month|three_month|six_month|yearly|lifetime"} or {"end_time_ms": <ms>}"#
        guard let json = try? JSONValue(parsingWithoutRepeatedNames: body.isEmpty ? Data("{}".utf8) : body),
            case .object(let members) = json
        else { return .failure(GrantRefusal(message: BodyShape.refusal(body, shape: shape))) }
        // A misspelt member (`start_time`) would otherwise grant something else than was asked.
        if let unknown = members.keys.sorted().first(where: { !Self.grantMembers.contains($0) }) {
            return .failure(
                GrantRefusal(message: "unknown member \"\(unknown)\": the body takes duration, start_time_ms and end_time_ms"))
        }
        func milliseconds(_ key: String) -> Int64?? {
            switch json[key] {
            case nil, .null?: .some(nil)
            case .integer(let value)? where value >= 0: .some(value)
            default: nil
            }
        }
        guard let start = milliseconds("start_time_ms"), let end = milliseconds("end_time_ms") else {
            return .failure(GrantRefusal(message: "start_time_ms and end_time_ms must be UNIX milliseconds"))
        }
        let duration: String?
        switch json["duration"] {
        case nil, .null?: duration = nil
        case .string(let text)? where PromotionalGrant.durations[text] != nil: duration = text
        case .string(let text)?: return .failure(GrantRefusal(message: "unknown duration \"\(text)\"; \(shape)"))
        default: return .failure(GrantRefusal(message: shape))
        }
        // RevenueCat: "regardless of what start_time_ms is set to, the entitlement will always
        // be granted immediately"; a duration runs from it, ahead or not.
        let requestedStartMs = start ?? nowMs
        let startMs = min(requestedStartMs, nowMs)
        let endMs: Int64
        switch (end, duration) {
        case (.some, .some):
            return .failure(GrantRefusal(message: "give duration or end_time_ms, not both"))
        case (let end?, nil):
            endMs = end
        case (nil, let duration?):
            // A duration is never longer than a lifetime; its start may be ahead, not without end.
            guard requestedStartMs - nowMs <= Self.longestGrantMs else {
                return .failure(GrantRefusal(message: "start_time_ms is later than a lifetime grant from now"))
            }
            let days = PromotionalGrant.durations[duration] ?? 0
            let (sum, overflow) = requestedStartMs.addingReportingOverflow(days * 86_400_000)
            guard !overflow else { return .failure(GrantRefusal(message: "start_time_ms is out of range")) }
            endMs = sum
        case (nil, nil):
            return .failure(GrantRefusal(message: shape))
        }
        // After its start too: access starts now or earlier.
        guard endMs > nowMs else { return .failure(GrantRefusal(message: "the grant would end in the past")) }
        guard duration != nil || endMs - nowMs <= Self.longestGrantMs else {
            return .failure(GrantRefusal(message: "the grant would end later than a lifetime grant from now"))
        }
        let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let product = "rc_promo_\(entitlement)_\(end != nil ? "custom" : duration ?? "custom")"
        return .success(
            PromotionalGrant(id: id, entitlementId: entitlement, productId: product, startMs: startMs, endMs: endMs))
    }

    /// The longest a grant may run from now: a lifetime grant's length, and a day.
    static let longestGrantMs: Int64 = ((PromotionalGrant.durations["lifetime"] ?? 0) + 1) * 86_400_000
}
