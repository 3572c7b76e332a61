import AppStore
import Foundation
import JSON
import LoopbackClient
import Server
import Threads

/// A local App Store: plays named stories against a running RevenueDot, signing each
/// notification over the dev chain as Apple would, and remembering the subscription between runs.
struct Simulator {
    enum Story: String, CaseIterable {
        case subscribe, renew, upgrade, downgrade, revert, cancel, uncancel
        case billingFailure = "billing-failure"
        case billingRecovery = "billing-recovery"
        case expire, refund
        case refundReversed = "refund-reversed"
        case familyRevoke = "family-revoke"
        case priceIncrease = "price-increase"
        case lifecycle
    }

    struct Options {
        var appId: String
        var user: String
        var bundleId: String
        var appAppleId: Int64?
        var product: String?
        var periodMs: Int64
        var environment: String
        var host: String
        var port: UInt16
        var grace = true
        var accept = false
        /// A new subscription is a family member's access through Family Sharing, not a purchase.
        var familyShared = false
        /// The app's public (or secret) API key: with it, a purchase is also posted by "the app"
        /// to `/v1/subscribers/{user}/transactions`, linking it to `--user` as a real app would.
        var apiKey: String?
    }

    let options: Options
    let chain: TestChain
    let stateFile: URL
    /// Where new transaction ids come from.
    let ids: TransactionIDs
    var state: SimulatedSubscription?
    /// Where each step's lines go.
    let print: (String) -> Void
    /// Where what the simulated App Store sent is kept for `simulate apple-api`; nil keeps nothing.
    var journal: AppleAPIJournal? = nil

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: - Stories

    /// Now in the story: the wall clock, or later once `renew` started a period ahead of it.
    private var storyNowMs: Int64 { max(UnixTime.nowMs, state?.clockMs ?? 0) }

    mutating func play(_ story: Story) throws {
        let now = storyNowMs
        // Copies: the closures below run while `state` (part of self) is being changed.
        let periodMs = options.periodMs
        let productOption = options.product
        switch story {
        case .subscribe:
            if var current = state {
                guard current.expired else {
                    throw Failure(
                        description: "\(options.user) is already subscribed (\(current.productId)); try renew, upgrade or expire")
                }
                current.nextPeriod(
                    productId: options.product ?? current.productId, transactionId: try ids.next(), startMs: now,
                    periodMs: options.periodMs)
                current.autoRenew = true
                current.autoRenewProductId = current.productId
                state = current
                try postFromApp()
                try send("SUBSCRIBED", "RESUBSCRIBE")
            } else {
                state = SimulatedSubscription(
                    productId: options.product ?? "pro.monthly", transactionId: try ids.next(), periodMs: options.periodMs,
                    nowMs: now, user: options.user,
                    environment: options.environment, bundleId: options.bundleId, trial: false,
                    familyShared: options.familyShared)
                try postFromApp()
                try send("SUBSCRIBED", "INITIAL_BUY")
            }
        case .renew:
            // Apple renews shortly before the period ends: the next period starts where this one ends.
            let id = try ids.next()
            try change {
                let start = max(now, $0.expiresMs)
                $0.nextPeriod(productId: $0.autoRenewProductId, transactionId: id, startMs: start, periodMs: periodMs)
                $0.clockMs = start
            }
            try send("DID_RENEW", nil)
        case .upgrade:
            let product = options.product ?? "pro.yearly"
            let id = try ids.next()
            try change {
                $0.autoRenewProductId = product
                $0.nextPeriod(productId: product, transactionId: id, startMs: now, periodMs: periodMs)
            }
            try send("DID_CHANGE_RENEWAL_PREF", "UPGRADE")
        case .downgrade:
            try change { $0.autoRenewProductId = productOption ?? ($0.productId == "pro.yearly" ? "pro.monthly" : "pro.basic") }
            try send("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE")
        case .revert:
            try change { $0.autoRenewProductId = $0.productId }
            try send("DID_CHANGE_RENEWAL_PREF", nil)
        case .cancel:
            try change { $0.autoRenew = false }
            try send("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED")
        case .uncancel:
            try change { $0.autoRenew = true }
            try send("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED")
        case .billingFailure:
            let grace = options.grace
            try change {
                $0.billingIssue = true
                $0.expiresMs = min($0.expiresMs, now)
                $0.graceEndsMs = grace ? now + max(periodMs / 2, 1000) : nil
            }
            try send("DID_FAIL_TO_RENEW", grace ? "GRACE_PERIOD" : nil, expirationIntent: 2)
        case .billingRecovery:
            let id = try ids.next()
            try change { $0.nextPeriod(productId: $0.autoRenewProductId, transactionId: id, startMs: now, periodMs: periodMs) }
            try send("DID_RENEW", "BILLING_RECOVERY")
        case .expire:
            let current = try existing()
            let (subtype, intent): (String?, Int) =
                !current.autoRenew
                ? ("VOLUNTARY", 1)
                : current.billingIssue
                    ? ("BILLING_RETRY", 2)
                    : current.priceIncreasePending ? ("PRICE_INCREASE", 3) : (nil, 5)
            try change {
                $0.expiresMs = min($0.expiresMs, now)
                $0.expired = true
                if subtype == "PRICE_INCREASE" { $0.autoRenew = false }
            }
            try send("EXPIRED", subtype, expirationIntent: intent)
        case .refund:
            guard try !existing().familyShared else {
                throw Failure(
                    description:
                        "\(options.user) has the subscription through Family Sharing and was never charged; the purchaser's refund reaches a family member as family-revoke"
                )
            }
            try change { $0.refundedMs = now }
            try send("REFUND", nil)
        case .refundReversed:
            try change { $0.refundedMs = nil }
            try send("REFUND_REVERSED", nil)
        case .familyRevoke:
            // Apple revokes a family member's own shared transaction, never the purchaser's.
            guard try existing().familyShared else {
                throw Failure(
                    description:
                        "\(options.user) bought the subscription; family-revoke ends a family member's shared access: play a family member's story from subscribe --family-shared"
                )
            }
            try change { $0.refundedMs = now }
            try send("REVOKE", nil)
        case .priceIncrease:
            let accept = options.accept
            try change { $0.priceIncreasePending = !accept }
            try send("PRICE_INCREASE", accept ? "ACCEPTED" : "PENDING")
        case .lifecycle:
            try lifecycle()
        }
        try save()
    }

    /// A free trial that converts, an upgrade, a downgrade taken back, a cancellation, and the
    /// expiry: a whole customer story in about three periods of `--period`.
    private mutating func lifecycle() throws {
        let now = UnixTime.nowMs
        state = SimulatedSubscription(
            productId: options.product ?? "pro.monthly", transactionId: try ids.next(), periodMs: options.periodMs, nowMs: now,
            user: options.user, environment: options.environment, bundleId: options.bundleId, trial: true,
            familyShared: options.familyShared)
        try postFromApp()
        try send("SUBSCRIBED", "INITIAL_BUY")
        // The renewal comes just before the trial ends, as Apple charges ahead of the expiry.
        try wait(until: (state?.expiresMs ?? now) - min(options.periodMs / 10, 60_000) - 500)
        try play(.renew)
        try wait(milliseconds: options.periodMs / 2)
        try play(.upgrade)
        try wait(milliseconds: options.periodMs / 2)
        try play(.downgrade)
        try play(.revert)
        try play(.cancel)
        try wait(until: state?.expiresMs ?? UnixTime.nowMs)
        try play(.expire)
    }

    // MARK: - Steps

    private func existing() throws -> SimulatedSubscription {
        guard let state else {
            throw Failure(
                description: "no simulated subscription for \(options.user) yet; start with: revenuedot simulate subscribe")
        }
        return state
    }

    /// Moves a story clock that runs ahead of the wall clock (after `renew`) past `signedMs`, so
    /// that no two steps are signed at the same millisecond: the order of two notifications with
    /// one `signedDate` is not what Apple's would be (a cancel and an uncancel, tied, were folded
    /// by their UUIDs).
    private mutating func tick(after signedMs: Int64) {
        guard let clock = state?.clockMs, clock > UnixTime.nowMs else { return }
        state?.clockMs = max(clock, signedMs + 1)
    }

    private mutating func change(_ body: (inout SimulatedSubscription) -> Void) throws {
        var current = try existing()
        body(&current)
        state = current
    }

    private func wait(milliseconds: Int64) throws {
        guard milliseconds > 0 else { return }
        print("   … waiting \(Self.duration(milliseconds))")
        Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
    }

    private func wait(until ms: Int64) throws { try wait(milliseconds: ms - UnixTime.nowMs + 500) }

    /// Signs and POSTs one notification about the current state; prints what went and what came back.
    private mutating func send(_ type: String, _ subtype: String?, expirationIntent: Int? = nil) throws {
        let subscription = try existing()
        let now = storyNowMs
        var data: [String: JSONValue] = [
            "bundleId": .string(options.bundleId), "bundleVersion": .string("1"), "environment": .string(options.environment),
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
            "→ \(title)  \(subscription.productId)  transaction \(subscription.transactionId)  expires \(UnixTime.iso8601(subscription.expiresMs))  \(renews)"
        )
        let body = Data(JSONValue.object(["signedPayload": .string(signed)]).serialized().utf8)
        journal?.recordTransaction(subscription.transactionJSON(signedMs: now), bundleId: options.bundleId, account: options.user)
        journal?.recordRenewalInfo(
            subscription.renewalJSON(signedMs: now, expirationIntent: expirationIntent), bundleId: options.bundleId,
            originalTransactionId: subscription.originalTransactionId)
        let response: LoopbackResponse
        do {
            response = try post("/v1/apple/notifications/\(options.appId)", body: body)
        } catch {
            // The App Store made this step whether or not RevenueDot heard of it: the state moves
            // on, and Apple keeps the notification in its history (`simulate apple-api` serves it,
            // `backfill` recovers it).
            journal?.recordNotification(signed, bundleId: options.bundleId, delivered: false)
            tick(after: now)
            try? save()
            throw Failure(
                description: "\(error); the App Store keeps this notification in its history: revenuedot backfill (or serve, "
                    + "with appleApi configured) recovers it")
        }
        journal?.recordNotification(signed, bundleId: options.bundleId, delivered: response.status == 200)
        tick(after: now)
        print("← \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        guard response.status == 200 else {
            // The answer printed above says why; the hint is for the refusal a setup causes.
            let hint =
                response.status == 401
                ? "is the dev CA root in the app's rootCertificates?"
                : response.status == 503
                    ? "storage could not commit (the answer above says why; see /health)" : "see the answer above"
            throw Failure(description: "RevenueDot answered \(response.status); \(hint)")
        }
    }

    /// What the app does after a purchase: posts the StoreKit 2 transaction to RevenueDot for its
    /// user (here just before Apple's notification arrives, as often happens).
    private mutating func postFromApp() throws {
        guard let key = options.apiKey else { return }
        let subscription = try existing()
        let now = storyNowMs
        let signed = try sign(subscription.transactionJSON(signedMs: now))
        tick(after: now)
        let body = Data(JSONValue.object(["signedTransaction": .string(signed)]).serialized().utf8)
        let user = options.user.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? options.user
        print("→ the app posts its StoreKit transaction for \(options.user)")
        let response: LoopbackResponse
        do {
            response = try post("/v1/subscribers/\(user)/transactions", body: body, headers: ["Authorization": "Bearer \(key)"])
        } catch {
            // An app whose backend is down posts again later; the purchase happened all the same.
            print("← the app could not reach RevenueDot (\(error)); it would post again later")
            return
        }
        let entitlements = (try? JSONValue(parsing: response.body))?["subscriber"]?["entitlements"]?.objectValue?.keys.sorted()
        print(
            "← \(response.status) entitlements: \(entitlements.map { $0.isEmpty ? "none" : $0.joined(separator: ", ") } ?? "?")")
    }

    /// POSTs JSON to the running server; an unreachable server is a `Failure` naming its address.
    private func post(_ path: String, body: Data, headers: [String: String] = [:]) throws -> LoopbackResponse {
        do {
            return try LoopbackConnection(host: options.host, port: options.port, timeoutSeconds: 10).request(
                "POST", path, headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine }, body: body)
        } catch {
            throw Failure(description: "cannot reach RevenueDot at http://\(options.host):\(options.port): \(error)")
        }
    }

    private func sign(_ value: JSONValue) throws -> String { try chain.sign(payload: Data(value.serialized().utf8)) }

    private func save() throws {
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

    // MARK: - Time

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
}
