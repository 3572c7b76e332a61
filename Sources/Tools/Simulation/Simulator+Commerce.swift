import AdvancedCommerce
import AppStore
import Crypto
import Foundation
import JSON
import LoopbackClient
import Server

/// The Advanced Commerce stories: the app has RevenueDot sign an in-app request
/// (`POST /v1/advanced-commerce/{app}/requests`), the customer confirms it in StoreKit, and the App
/// Store charges what the signed request says and notifies as for any subscription, the
/// transaction and renewal info carrying `advancedCommerceInfo` with the request's reference.
extension Simulator {
    /// The generic subscription product Advanced Commerce subscriptions are sold as, unless `--product`.
    static let commerceProduct = "commerce.pass"

    mutating func playCommerce(_ story: Story, at now: Int64) throws {
        switch story {
        case .commerceSubscribe:
            if let current = state {
                try refuse(
                    !current.expired,
                    "\(options.user) is already subscribed (\(current.productId)); try commerce-upgrade or expire")
            }
            let reference = UUID().uuidString.lowercased()
            let request = try requestJSON(CommerceRequestExamples.subscribe)
            // A resubscription names the customer's lapsed Advanced Commerce subscription.
            let resubscribed = try request["previousTransactionId"]?.stringValue.map { previous in
                guard let current = state, current.commerce != nil,
                    [current.transactionId, current.originalTransactionId].contains(previous)
                else {
                    throw Failure(
                        description: "previousTransactionId \(previous) is no transaction of \(options.user)'s Advanced "
                            + "Commerce subscription: nothing was signed")
                }
                return current
            }
            guard
                case .createSubscription(let create) = try signedRequest(
                    request, reference: reference, operation: "CREATE_SUBSCRIPTION"),
                let commerce = SimulatedCommerce(create, reference: reference)
            else { throw Failure(description: "commerce-subscribe takes a CREATE_SUBSCRIPTION request with items and a period") }
            if var current = resubscribed {
                // The same subscription bought again, on the new terms (its product stays).
                current.commerce = commerce
                current.nextPeriod(productId: current.productId, transactionId: try ids.next(), startMs: now, renewal: false)
                (current.autoRenew, current.autoRenewProductId) = (true, current.productId)
                state = current
                try postFromApp()
                return try send("SUBSCRIBED", "RESUBSCRIBE")
            }
            state = SimulatedSubscription(
                productId: options.product ?? Self.commerceProduct, transactionId: try ids.next(),
                fixedPeriodMs: options.periodMs,
                nowMs: now, user: options.user, environment: options.environment, bundleId: options.bundleId, trial: false,
                commerce: commerce)
            try postFromApp()
            try send("SUBSCRIBED", "INITIAL_BUY")
        case .commerceUpgrade, .commerceDowngrade:
            let current = try live(story.rawValue)
            guard var commerce = current.commerce else {
                throw Failure(
                    description: "\(options.user)'s subscription is not an Advanced Commerce one: commerce-subscribe starts one")
            }
            let example = story == .commerceUpgrade ? CommerceRequestExamples.upgrade : CommerceRequestExamples.downgrade
            let reference = UUID().uuidString.lowercased()
            guard
                case .modifySubscription(let modify) = try signedRequest(
                    try requestJSON(example), reference: reference, operation: "MODIFY_SUBSCRIPTION",
                    transactionId: current.transactionId)
            else { throw Failure(description: "\(story.rawValue) takes a MODIFY_SUBSCRIPTION request") }
            // A change that takes effect now is charged now: a new transaction, from now to the
            // current period's end (retainBillingCycle) or for a whole new period.
            guard commerce.modify(modify, reference: reference) else {
                try change { $0.commerce = commerce }
                try send("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE")
                return
            }
            let id = try ids.next()
            try change {
                let end = $0.expiresMs
                $0.commerce = commerce
                $0.nextPeriod(productId: $0.productId, transactionId: id, startMs: now, renewal: false)
                if modify.retainBillingCycle == true { $0.expiresMs = max(end, now) }
            }
            try send("DID_CHANGE_RENEWAL_PREF", "UPGRADE")
        default:
            throw Failure(description: "\(story.rawValue) is not an Advanced Commerce story")
        }
    }

    /// The request a story has signed: `--request FILE`, else `example`.
    private func requestJSON(_ example: String) throws -> JSONValue {
        let text: Data
        if let path = options.requestFile {
            guard let data = FileManager.default.contents(atPath: path) else { throw Failure(description: "cannot read \(path)") }
            text = data
        } else {
            text = Data(example.utf8)
        }
        let request = try JSONValue(parsing: text)
        guard request.objectValue != nil else { throw Failure(description: "the request is not a JSON object") }
        return request
    }

    /// Has RevenueDot sign `request` for the customer, as the app's backend does, and returns the
    /// request the signed token carries: what the App Store reads and charges. A request of
    /// another `operation` than the story plays is refused before anything is signed (it would
    /// be left pending, never charged).
    private mutating func signedRequest(
        _ request: JSONValue, reference: String, operation expected: String, transactionId: String? = nil
    ) throws -> InAppRequest {
        guard let key = options.secretApiKey else {
            throw Failure(
                description: "app \(options.appId) has no secretApiKey: the app's backend signs in-app requests with it")
        }
        var request = request
        var info = request["requestInfo"] ?? .object([:])
        info["requestReferenceId"] = .string(reference)
        info["appAccountToken"] = .string(try existingToken())
        request["requestInfo"] = info
        if let transactionId { request["transactionId"] = .string(transactionId) }
        let operation = request["operation"]?.stringValue ?? "?"
        guard operation == expected else {
            throw Failure(description: "this story takes a \(expected) request, not \(operation): nothing was signed")
        }
        print("→ the app has RevenueDot sign its \(operation) request \(reference)")
        let body = JSONValue.object(["app_user_id": .string(options.user), "request": request])
        let response = try post(
            "/v1/advanced-commerce/\(RunningServer.pathComponent(options.appId))/requests", body: Data(body.serialized().utf8),
            headers: ["Authorization": "Bearer \(key)"])
        let answer = try? JSONValue(parsing: response.body)
        guard response.status == 200, let token = answer?["token"]?.stringValue else {
            print("← \(response.status) \(String(decoding: response.body, as: UTF8.self))")
            let refusal = answer?["error"].map { "\($0["code"]?.stringValue ?? "?"): \($0["message"]?.stringValue ?? "")" }
            throw Failure(description: "RevenueDot did not sign the request: \(refusal ?? "it answered \(response.status)")")
        }
        print("← \(response.status) signed; the customer confirms the purchase in StoreKit")
        guard let signed = Self.request(inToken: token) else {
            throw Failure(description: "the token RevenueDot signed carries no request the App Store can read")
        }
        return signed
    }

    /// The customer's `appAccountToken`: their subscription's, or the one `--user` makes.
    private func existingToken() throws -> String {
        state?.appAccountToken ?? UUID(uuidString: options.user)?.uuidString.lowercased()
            ?? SimulatedSubscription.token(for: options.user)
    }

    /// The in-app request in an Advanced Commerce token's `request` claim (standard base64 of
    /// the request's JSON).
    static func request(inToken token: String) -> InAppRequest? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let claims = Base64.decode(parts[1], alphabet: .url).flatMap({ try? JSONValue(parsing: $0) }),
            let encoded = claims["request"]?.stringValue, let json = Base64.decode(encoded, alphabet: .standard)
        else { return nil }
        return try? InAppRequest(json: json)
    }
}
