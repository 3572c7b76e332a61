import AppStore
import Foundation
import JSON
import LoopbackClient
import Server
import Threads

/// What every story is made of: the state it starts from, the notification it signs and sends,
/// the purchase the app posts, and the file the subscription is kept in.
extension Simulator {
    // MARK: - State

    func existing() throws -> SimulatedSubscription {
        guard let state else {
            throw Failure(
                description:
                    "no simulated subscription for \(options.user) yet; start with: revenuedot simulate subscribe --user \(options.user)"
            )
        }
        return state
    }

    /// Takes up what the App Store changed itself since the last step: a renewal-date extension
    /// (`simulate apple-api`, asked by `revenuedot apple extend-renewal-date`) moved the current
    /// period's end, which the story's next transaction and renewal info must keep.
    mutating func takeUpStoreChanges() {
        guard let journal, let current = state,
            let latest = journal.latestTransaction(current.transactionId, bundleId: current.bundleId),
            case .integer(let expires) = latest["expiresDate"], expires > current.expiresMs
        else { return }
        state?.expiresMs = expires
        print("   (the App Store extended \(current.transactionId) to \(UnixTime.iso8601(expires)))")
    }

    /// The subscription, for a step (`story`) only a subscription that has not expired takes.
    func live(_ story: String) throws -> SimulatedSubscription {
        let current = try existing()
        let resubscribe =
            current.commerce == nil
            ? "subscribe resubscribes" : "commerce-subscribe --request FILE naming previousTransactionId resubscribes"
        try refuse(current.expired, "\(options.user)'s subscription has expired, so there is nothing to \(story); \(resubscribe)")
        return current
    }

    /// Throws `reason` as the story's failure when `condition` holds: a step the App Store would not take.
    func refuse(_ condition: Bool, _ reason: String) throws {
        if condition { throw Failure(description: reason) }
    }

    mutating func change(_ body: (inout SimulatedSubscription) -> Void) throws {
        var current = try existing()
        body(&current)
        state = current
    }

    func wait(milliseconds: Int64) throws {
        guard milliseconds > 0 else { return }
        print("   … waiting \(Self.duration(milliseconds))")
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
    }

    func wait(until ms: Int64) throws { try wait(milliseconds: ms - UnixTime.nowMs + 500) }

    /// The `signedDate` of the next thing signed: now, and after everything signed before, so
    /// two steps never share one (two notifications tied on `signedDate` are folded in the order
    /// of their UUIDs, not in the order they happened).
    mutating func nextSignedMs() -> Int64 {
        let signed = max(UnixTime.nowMs, (state?.signedAfterMs ?? 0) + 1)
        state?.lastSignedMs = signed
        return signed
    }

    // MARK: - Sending

    /// Signs and POSTs one notification about the current state; prints what went and what came back.
    mutating func send(_ type: String, _ subtype: String?, expirationIntent: Int? = nil) throws {
        let now = nextSignedMs()
        let subscription = try existing()
        var data: [String: JSONValue] = [
            // The subscription's environment, whatever this step was given: its notification
            // must say the environment its transaction does.
            "bundleId": .string(options.bundleId), "bundleVersion": .string("1"),
            "environment": .string(subscription.environment),
            "signedTransactionInfo": .string(try sign(subscription.transactionJSON(signedMs: now))),
            "signedRenewalInfo": .string(try sign(subscription.renewalJSON(signedMs: now, expirationIntent: expirationIntent))),
            "status": .integer(subscription.expired ? 2 : subscription.refundedMs != nil ? 5 : subscription.billingIssue ? 3 : 1),
        ]
        data["appAppleId"] = options.appAppleId.map(JSONValue.integer)
        var notification: [String: JSONValue] = [
            "notificationType": .string(type), "notificationUUID": .string(UUID().uuidString.lowercased()),
            "version": .string("2.0"), "signedDate": .integer(now), "data": .object(data),
        ]
        notification["subtype"] = subtype.map(JSONValue.string)
        let signed = try sign(.object(notification))
        let title = subtype.map { "\(type) / \($0)" } ?? type
        let renews =
            subscription.autoRenew
            ? "auto-renew on"
                + (subscription.autoRenewProductId != subscription.productId
                    ? " → \(subscription.autoRenewProductId)" : "") : "auto-renew off"
        print(
            "→ \(title)  \(subscription.productId)  transaction \(subscription.transactionId)  "
                + "\(Self.price(subscription.currentPriceMilliunits))  expires \(UnixTime.iso8601(subscription.expiresMs))  \(renews)"
        )
        let body = Data(JSONValue.object(["signedPayload": .string(signed)]).serialized().utf8)
        journal?.recordTransaction(subscription.transactionJSON(signedMs: now), bundleId: options.bundleId, account: options.user)
        journal?.recordRenewalInfo(
            subscription.renewalJSON(signedMs: now, expirationIntent: expirationIntent), bundleId: options.bundleId,
            originalTransactionId: subscription.originalTransactionId)
        let response: LoopbackResponse
        do {
            response = try post("/v1/apple/notifications/\(RunningServer.pathComponent(options.appId))", body: body)
        } catch {
            // The App Store made this step whether or not RevenueDot heard of it: the state moves
            // on, and Apple keeps the notification in its history (`simulate apple-api` serves it,
            // `backfill` recovers it).
            journal?.recordNotification(signed, bundleId: options.bundleId, delivered: false)
            try? save()
            throw Failure(
                description: "\(error); the App Store keeps this notification in its history: revenuedot backfill recovers it "
                    + "(so does serve, at start, with appleApi configured and backfillIntervalMinutes above 0)")
        }
        // The step is the App Store's now: kept before anything can stop the story (an interrupted
        // lifecycle, a reader of its output that went away) so the next story continues from it.
        try save()
        journal?.recordNotification(signed, bundleId: options.bundleId, delivered: response.status == 200)
        print("← \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        guard response.status == 200 else {
            // The answer printed above says why; the hint is for the refusal a setup causes.
            let hint =
                response.status == 401
                ? "is the dev CA root in the app's rootCertificates?"
                : response.status == 503
                    ? "storage could not commit (serve's log says why)" : "see the answer above"
            throw Failure(description: "RevenueDot answered \(response.status); \(hint)")
        }
        // Kept, but not applied: the story's step did not reach the subscription.
        if (try? JSONValue(parsing: response.body))?["status"] == .string("held") {
            throw Failure(
                description: "RevenueDot kept the notification held, not applied: app \(options.appId) does not accept its "
                    + "bundle ID or environment (revenuedot notifications list --held says why)")
        }
    }

    /// What the app does after a purchase: posts the StoreKit 2 transaction to RevenueDot for its
    /// user (here just before Apple's notification arrives, as often happens).
    mutating func postFromApp() throws {
        guard let key = options.apiKey else { return }
        let now = nextSignedMs()
        let signed = try sign(try existing().transactionJSON(signedMs: now))
        let body = Data(JSONValue.object(["signedTransaction": .string(signed)]).serialized().utf8)
        print("→ the app posts its StoreKit transaction for \(options.user)")
        let response: LoopbackResponse
        do {
            response = try post(
                "/v1/subscribers/\(RunningServer.pathComponent(options.user))/transactions", body: body,
                headers: ["Authorization": "Bearer \(key)"])
        } catch {
            // An app whose backend is down posts again later; the purchase happened all the same.
            print("← the app could not reach RevenueDot (\(error)); it would post again later")
            return
        }
        let answer = try? JSONValue(parsing: response.body)
        guard response.status == 200 else {
            // RevenueCat's error shape, or RevenueDot's: say why it was refused.
            let why = answer?["message"]?.stringValue ?? answer?["error"]?["message"]?.stringValue ?? "no reason given"
            print("← \(response.status) \(why)")
            return
        }
        guard let entitlements = answer?["subscriber"]?["entitlements"]?.objectValue else {
            return print("← \(response.status) entitlements: ?")
        }
        // RevenueCat lists expired entitlements too: only those active now are the customer's.
        let checked = Date()
        let expired = entitlements.filter { _, entitlement in
            entitlement["expires_date"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) }.map { $0 <= checked } ?? false
        }.keys.sorted()
        let active = entitlements.keys.filter { !expired.contains($0) }.sorted()
        print(
            "← \(response.status) entitlements: \(active.isEmpty ? "none" : active.joined(separator: ", "))"
                + (expired.isEmpty ? "" : " (expired: \(expired.joined(separator: ", ")))"))
    }

    /// POSTs JSON to the running server; an unreachable server is a `Failure` naming its address.
    func post(_ path: String, body: Data, headers: [String: String] = [:]) throws -> LoopbackResponse {
        do {
            return try LoopbackConnection(host: options.host, port: options.port, timeoutSeconds: 10).request(
                "POST", path, headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine }, body: body)
        } catch {
            throw Failure(description: "cannot reach RevenueDot at http://\(options.host):\(options.port): \(error)")
        }
    }

    func sign(_ value: JSONValue) throws -> String { try chain.sign(payload: Data(value.serialized().utf8)) }

    // MARK: - Saved state

    func save() throws {
        guard let state else { return }
        try PrivateFile.createDirectory(stateFile.deletingLastPathComponent().path)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try PrivateFile.write(try encoder.encode(state), to: stateFile.path, exclusive: false)
    }

    static func load(_ file: URL) -> SimulatedSubscription? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return try? JSONDecoder().decode(SimulatedSubscription.self, from: data)
    }

    // MARK: - Time and money

    /// `30s`, `5m`, `2h`, `30d`: a period length in milliseconds, at most `maximumPeriodMs`.
    static func period(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count > 0 else { return nil }
        let (ms, overflow) = count.multipliedReportingOverflow(by: unit)
        return overflow || ms > maximumPeriodMs ? nil : ms
    }

    /// Ten years: the longest period App Store sells is a year, and dates must stay plausible.
    static let maximumPeriodMs: Int64 = 3650 * 86_400_000

    static func duration(_ ms: Int64) -> String {
        ms >= 86_400_000
            ? "\(ms / 86_400_000)d"
            : ms >= 3_600_000 ? "\(ms / 3_600_000)h" : ms >= 60_000 ? "\(ms / 60_000)m" : "\(max(1, ms / 1000))s"
    }

    /// USD milliunits as dollars and cents: `9990` is `$9.99`.
    static func price(_ milliunits: Int64) -> String {
        let cents = milliunits / 10
        return "$\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
    }
}
