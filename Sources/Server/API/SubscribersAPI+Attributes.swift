import AppStore
import Foundation
import HTTP
import JSON
import Storage
import Subscriptions
import Threads

extension SubscribersAPI {
    /// `POST /v1/subscribers/{id}/attributes` (either key), in RevenueCat's format:
    /// `{"attributes": {"$email": {"value": "...", "updated_at_ms": ...}}}`. A null or empty value
    /// deletes; a write older than the stored one changes nothing; device ids and attribution
    /// keep their first value. Answers the customer; as RevenueCat does, a key that is invalid
    /// (or a new custom key past the limit) is not saved and the answer is 400, RevenueCat's code
    /// 7263 with `attribute_errors` naming each such key, while the request's valid keys are saved
    /// (RevenueCat's SDKs take that answer as synced and never send those keys again).
    package func setAttributes(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request) else {
            return reply(RevenueCatError.invalidAPIKey.response(status: 401, "Invalid API key."))
        }
        let appUserId = request.pathParameters["app_user_id"] ?? ""
        guard !appUserId.isEmpty else {
            return reply(RevenueCatError.emptyAppUserId.response(status: 400, "app_user_id is empty."))
        }
        if let refused = AppUserIdRule.refusal(appUserId, access: access) { return reply(refused) }
        let now = clock()
        let parsed: [String: SubscriberAttribute]
        switch Self.attributes(in: request.body, defaultTimeMs: UnixTime.milliseconds(now)) {
        case .failure(let refusal): return reply(refusal.response)
        case .success(let attributes): parsed = attributes
        }
        var problems: [JSONValue] = []
        var valid: [String: SubscriberAttribute] = [:]
        for (key, attribute) in parsed {
            if let problem = Self.attributeProblem(key, SubscriberAttribute.problem(key: key, value: attribute.value)) {
                problems.append(problem)
            } else {
                valid[key] = attribute
            }
        }
        guard !valid.isEmpty || problems.isEmpty else { return reply(Self.attributesRefused(problems)) }
        // The cap is checked in the write that saves the keys, against the customer as it is
        // there: requests at once cannot each pass a check made before the other's write. The
        // keys past it are left out of what is kept, so replay rebuilds what was saved.
        let pastCap = Locked<[String]>([])
        apply(
            app: app, atMs: UnixTime.milliseconds(now), access: access, reply: reply,
            keeping: { [valid] rows in
                let customer = try CustomerRows.customer(named: appUserId, appId: app.id, from: rows)
                let stored = customer?.attributes ?? [:]
                let over = SubscriberAttribute.newKeysPastCap(valid, stored: stored)
                pastCap.withLock { $0 = over }
                let kept = valid.filter { !over.contains($0.key) }
                // Nothing left to save keeps nothing (an empty request is kept only when it makes
                // a customer not known yet).
                if kept.isEmpty && (!valid.isEmpty || customer != nil) { return nil }
                // Nor does a write that changes no attribute of a known customer: the public key
                // could otherwise grow the database without end by repeating one. Attributes are
                // made by customer actions alone, which replay applies in the same order under
                // any configuration: such a write changes nothing there either.
                if customer != nil, !kept.isEmpty, SubscriberAttribute.merging(kept, into: stored) == stored { return nil }
                return .attributesSet(appUserId: appUserId, kept)
            },
            answer: { [problems] in
                let capped = pastCap.value.compactMap {
                    Self.attributeProblem(
                        $0, "A customer keeps at most \(SubscriberAttribute.maximumCustomAttributes) custom attributes.")
                }
                guard problems.isEmpty, capped.isEmpty else { return Self.attributesRefused(problems + capped) }
                return answerSubscriber(appUserId, app: app, access: access).response
            })
    }

    /// RevenueCat's 400 naming the keys not saved (the SDK takes it as synced: the request's
    /// other keys were saved), in key order.
    private static func attributesRefused(_ problems: [JSONValue]) -> HTTPResponse {
        RevenueCatError.invalidSubscriberAttributes.response(
            status: 400, "Some customer attribute keys were unable to be saved.",
            extra: [
                "attribute_errors": .array(
                    problems.sorted { ($0["key_name"]?.stringValue ?? "") < ($1["key_name"]?.stringValue ?? "") }),
                "revenuedot_error": .string("invalid_attributes"),
            ])
    }

    /// A request refused, with its answer.
    package struct Refusal: Error {
        package var response: HTTPResponse
    }

    private static func attributeProblem(_ key: String, _ message: String?) -> JSONValue? {
        message.map { .object(["key_name": .string(key), "message": .string($0)]) }
    }

    /// The attributes of a request body; a body of another shape is RevenueCat's 7264.
    package static func attributes(in body: Data, defaultTimeMs: Int64) -> Result<[String: SubscriberAttribute], Refusal> {
        guard let json = try? JSONValue(parsingWithoutRepeatedNames: body), case .object(let members)? = json["attributes"]
        else { return attributesBodyRefused(BodyShape.refusal(body, shape: attributesShape)) }
        return attributes(members, defaultTimeMs: defaultTimeMs)
    }

    /// RevenueCat's 7264: a body of another shape, saving nothing.
    private static func attributesBodyRefused(_ message: String) -> Result<[String: SubscriberAttribute], Refusal> {
        .failure(
            Refusal(
                response: RevenueCatError.invalidSubscriberAttributesBody.response(
                    status: 400, message, extra: ["revenuedot_error": .string("bad_request")])))
    }

    private static let attributesShape =
        #"the body must be {"attributes": {"<key>": {"value": "<string or null>", "updated_at_ms": <ms>}}}"#

    /// The attributes of RevenueCat's `attributes` object, already parsed (a receipt's); one of
    /// another shape is RevenueCat's 7264.
    package static func attributes(_ members: [String: JSONValue], defaultTimeMs: Int64)
        -> Result<[String: SubscriberAttribute], Refusal>
    {
        var attributes: [String: SubscriberAttribute] = [:]
        for (key, attribute) in members {
            guard case .object = attribute else { return attributesBodyRefused("\(key): \(attributesShape)") }
            let value: String?
            switch attribute["value"] {
            case .string(let text)?: value = text
            case .null?, nil: value = nil
            default: return attributesBodyRefused("\(key).value must be a string or null")
            }
            let updated: Int64
            switch attribute["updated_at_ms"] {
            // A time past the request's is the request's: a device whose clock runs ahead, or a
            // client that sends a far future to make its value the last word, writes as of now.
            case .integer(let number)? where number >= 0: updated = min(number, defaultTimeMs)
            case nil, .null?: updated = defaultTimeMs
            default: return attributesBodyRefused("\(key).updated_at_ms must be UNIX milliseconds")
            }
            attributes[key] = SubscriberAttribute(value: value, updatedAtMs: updated)
        }
        return .success(attributes)
    }
}
