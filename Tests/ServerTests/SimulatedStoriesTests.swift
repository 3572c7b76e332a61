import Foundation
import JSON
import Synchronization
import Testing

@testable import Tools

/// Every `revenuedot simulate` story, played by real processes against a real server, one after
/// another and several customers at once: after each step, the events RevenueDot emitted, the
/// access it gives and the subscription it shows are what the reducer makes of what Apple would
/// have sent (`SubscriptionState+Events`, `+Access`), and agree with what the simulator kept.
@Suite("simulate: every story")
struct SimulatedStoriesTests {
    /// One step of a customer's story, and what RevenueDot must make of it.
    struct Step: Sendable, CustomStringConvertible {
        /// The story and its options, without `--user`.
        var arguments: [String]
        /// The events it causes, due timers included, in order.
        var events: [String] = []
        /// Whether the customer has access afterwards.
        var access = true
        /// The App Store would not take this step: it fails and sends nothing.
        var refused = false
        /// What the period it starts costs (`price_in_purchased_currency` of its INITIAL_PURCHASE or RENEWAL).
        var price: Double? = nil
        /// How long the period it starts lasts.
        var lasts: Length? = nil
        /// The Advanced Commerce items the subscription shows afterwards, and those scheduled for
        /// its renewal (empty: nothing scheduled).
        var items: [String]? = nil
        var scheduled: [String]? = nil

        var description: String { arguments.joined(separator: " ") }
    }

    enum Length: Sendable {
        case days(Int)
        case months(Int)
        case seconds(Int)

        func end(after startMs: Int64) -> Int64 {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let start = Date(timeIntervalSince1970: Double(startMs) / 1000)
            let end: Date? =
                switch self {
                case .days(let days): calendar.date(byAdding: .day, value: days, to: start)
                case .months(let months): calendar.date(byAdding: .month, value: months, to: start)
                case .seconds(let seconds): start.addingTimeInterval(Double(seconds))
                }
            return Int64(((end ?? start).timeIntervalSince1970 * 1000).rounded())
        }
    }

    // MARK: - The stories

    /// A purchaser's whole life, every story of a purchase at least once.
    static let purchaser: [Step] = [
        Step(arguments: ["subscribe"], events: ["INITIAL_PURCHASE"], price: 9.99, lasts: .months(1)),
        Step(arguments: ["renew"], events: ["RENEWAL"], price: 9.99, lasts: .months(1)),
        Step(arguments: ["price-increase"]),
        Step(arguments: ["renew"], refused: true),
        Step(arguments: ["price-increase", "--accept"]),
        Step(arguments: ["renew"], events: ["RENEWAL"], price: 10.99, lasts: .months(1)),
        Step(arguments: ["upgrade"], events: ["PRODUCT_CHANGE", "RENEWAL"], price: 99.99, lasts: .months(12)),
        Step(arguments: ["upgrade"], refused: true),
        Step(arguments: ["downgrade"], events: ["PRODUCT_CHANGE"]),
        Step(arguments: ["revert"], events: ["PRODUCT_CHANGE"]),
        Step(arguments: ["revert"], refused: true),
        Step(arguments: ["cancel"], events: ["CANCELLATION"]),
        Step(arguments: ["renew"], refused: true),
        Step(arguments: ["uncancel"], events: ["UNCANCELLATION"]),
        Step(arguments: ["billing-recovery"], refused: true),
        Step(arguments: ["billing-failure"], events: ["BILLING_ISSUE", "CANCELLATION"]),
        Step(arguments: ["renew"], refused: true),
        Step(arguments: ["billing-recovery"], events: ["RENEWAL"], price: 99.99, lasts: .months(12)),
        Step(
            arguments: ["billing-failure", "--no-grace"], events: ["BILLING_ISSUE", "CANCELLATION", "EXPIRATION"], access: false),
        Step(arguments: ["billing-recovery"], events: ["RENEWAL"], price: 99.99, lasts: .months(12)),
        Step(arguments: ["refund"], events: ["CANCELLATION", "EXPIRATION"], access: false),
        Step(arguments: ["refund-reversed"], events: ["REFUND_REVERSED"]),
        Step(arguments: ["renew"], events: ["RENEWAL"], price: 99.99, lasts: .months(12)),
        // Apple ends it in good standing (the product left sale): cancelled, then expired.
        Step(arguments: ["expire"], events: ["CANCELLATION", "EXPIRATION"], access: false),
        Step(arguments: ["renew"], access: false, refused: true),
        Step(arguments: ["expire"], access: false, refused: true),
        // The monthly price the customer accepted is the one a resubscription pays.
        Step(arguments: ["subscribe", "--product", "pro.monthly"], events: ["RENEWAL"], price: 10.99, lasts: .months(1)),
        Step(arguments: ["renew"], events: ["RENEWAL"], price: 10.99, lasts: .months(1)),
        Step(
            arguments: ["billing-failure", "--no-grace"], events: ["BILLING_ISSUE", "CANCELLATION", "EXPIRATION"], access: false),
        Step(arguments: ["expire"], access: false),
    ]

    /// A family member's access through Family Sharing, revoked.
    static let familyMember: [Step] = [
        Step(arguments: ["subscribe", "--family-shared"], events: ["INITIAL_PURCHASE"], lasts: .months(1)),
        Step(arguments: ["refund"], refused: true),
        Step(arguments: ["family-revoke"], events: ["EXPIRATION"], access: false),
    ]

    /// Periods as long as the product's name says, or as `--period`, which later steps keep.
    static let lengths: [[Step]] = [
        [
            Step(
                arguments: ["subscribe", "--product", "pro.weekly"], events: ["INITIAL_PURCHASE"], price: 2.99, lasts: .days(7)),
            Step(arguments: ["upgrade"], events: ["PRODUCT_CHANGE", "RENEWAL"], price: 99.99, lasts: .months(12)),
            Step(arguments: ["downgrade"], events: ["PRODUCT_CHANGE"]),
            Step(arguments: ["renew"], events: ["RENEWAL"], price: 9.99, lasts: .months(1)),
        ],
        [
            Step(arguments: ["subscribe", "--period", "2h"], events: ["INITIAL_PURCHASE"], price: 9.99, lasts: .seconds(7200)),
            Step(arguments: ["renew"], events: ["RENEWAL"], price: 9.99, lasts: .seconds(7200)),
            Step(
                arguments: ["upgrade", "--period", "1d"], events: ["PRODUCT_CHANGE", "RENEWAL"], price: 99.99, lasts: .days(1)),
        ],
    ]

    /// An Advanced Commerce subscription: signed requests, charged as they say.
    static let commerceCustomer: [Step] = [
        Step(
            arguments: ["commerce-subscribe"], events: ["INITIAL_PURCHASE"], price: 12.98, lasts: .months(1),
            items: ["LIVE_SPORTS", "NEWS_CHANNELS"], scheduled: []),
        Step(arguments: ["commerce-subscribe"], refused: true),
        Step(arguments: ["upgrade"], refused: true),
        Step(arguments: ["price-increase"], refused: true),
        Step(
            arguments: ["commerce-upgrade"], events: ["PRODUCT_CHANGE", "RENEWAL"], price: 17.98, lasts: .months(1),
            items: ["LIVE_SPORTS_4K", "NEWS_CHANNELS"], scheduled: []),
        Step(
            arguments: ["commerce-downgrade"], events: ["PRODUCT_CHANGE"], items: ["LIVE_SPORTS_4K", "NEWS_CHANNELS"],
            scheduled: ["LIVE_SPORTS_4K", "NEWS_HEADLINES"]),
        // Auto-renew off: nothing renews, so no change is coming; turned on again, it is.
        Step(arguments: ["cancel"], events: ["CANCELLATION"], scheduled: []),
        Step(arguments: ["uncancel"], events: ["UNCANCELLATION"], scheduled: ["LIVE_SPORTS_4K", "NEWS_HEADLINES"]),
        Step(
            arguments: ["renew"], events: ["RENEWAL"], price: 16.98, lasts: .months(1),
            items: ["LIVE_SPORTS_4K", "NEWS_HEADLINES"],
            scheduled: []),
        Step(arguments: ["cancel"], events: ["CANCELLATION"]),
        Step(arguments: ["expire"], events: ["EXPIRATION"], access: false),
        Step(arguments: ["commerce-upgrade"], access: false, refused: true),
        Step(
            arguments: ["commerce-subscribe"], events: ["INITIAL_PURCHASE"], price: 12.98,
            items: ["LIVE_SPORTS", "NEWS_CHANNELS"]),
    ]

    /// Every story above, each for a customer of its own.
    static func everyStory(_ prefix: String) -> [(user: String, steps: [Step])] {
        [("\(prefix)-buyer", purchaser), ("\(prefix)-family", familyMember), ("\(prefix)-commerce", commerceCustomer)]
            + lengths.enumerated().map { ("\(prefix)-length\($0.offset)", $0.element) }
    }

    // MARK: - Tests

    @Test func everyStoryInSequence() throws {
        let world = try SimulatorWorld()
        defer { world.shutdown() }
        for (user, steps) in Self.everyStory("seq") {
            let failures = Self.play(steps, as: user, in: world)
            #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        }
    }

    /// The same stories, four customers of each at once, each step its own process.
    @Test func everyStoryInParallel() throws {
        let world = try SimulatorWorld()
        defer { world.shutdown() }
        let stories = (0..<4).flatMap { Self.everyStory("par\($0)") }
        let failures = Mutex<[String]>([])
        runOnThreads(stories.count) { index in
            let found = Self.play(stories[index].steps, as: stories[index].user, in: world)
            failures.withLock { $0 += found }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.joined(separator: "\n"))")
    }

    // MARK: - Playing and checking

    /// Plays `steps` for `user`; what went wrong, one line each.
    static func play(_ steps: [Step], as user: String, in world: SimulatorWorld) -> [String] {
        var failures: [String] = []
        do {
            var cursor: Int64 = 0
            while case let next = try world.events(after: cursor).next, next != cursor { cursor = next }
            for (number, step) in steps.enumerated() {
                let label = "\(user) step \(number + 1) (\(step))"
                let played = try world.simulate(step.arguments + ["--user", user])
                if played.status != (step.refused ? 1 : 0) {
                    failures.append("\(label): exit \(played.status): \(played.output)")
                    return failures
                }
                var events: [JSONValue] = []
                // A timer due now may be in the hands of another story's tick (or the scheduler's)
                // whose commit is not on disk yet: while fewer events than expected came, and those
                // that came are the first expected, ticks and reads go on for up to two seconds.
                for attempt in 0..<20 {
                    if attempt > 0 { Thread.sleep(forTimeInterval: 0.1) }
                    _ = try world.service.fireDueTimers()
                    while true {
                        let (page, next) = try world.events(after: cursor)
                        events += page.filter { $0["app_user_id"] == .string(user) }
                        if next == cursor { break }
                        cursor = next
                    }
                    let types = events.compactMap { $0["type"]?.stringValue }
                    guard types.count < step.events.count, Array(step.events.prefix(types.count)) == types else { break }
                }
                failures += try check(step, label, events: events, user: user, in: world)
            }
        } catch {
            failures.append("\(user): \(error)")
        }
        return failures
    }

    /// What went wrong with one step, one line each.
    static func check(_ step: Step, _ label: String, events: [JSONValue], user: String, in world: SimulatorWorld) throws
        -> [String]
    {
        var failures: [String] = []
        let types = events.compactMap { $0["type"]?.stringValue }
        if types != step.events { failures.append("\(label): events \(types), expected \(step.events)") }
        let subscriber = try world.subscriber(user)
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let access = (subscriber["entitlements"]?.objectValue ?? [:]).values.contains { entitlement in
            [entitlement["expires_date"], entitlement["grace_period_expires_date"]].contains { date in
                date?.stringValue.flatMap(Self.milliseconds).map { $0 > nowMs } ?? false
            }
        }
        if access != step.access { failures.append("\(label): access \(access), expected \(step.access)") }
        if let price = step.price {
            let paid = events.first { ["INITIAL_PURCHASE", "RENEWAL"].contains($0["type"]?.stringValue) }?[
                "price_in_purchased_currency"]
            if Self.number(paid).map({ abs($0 - price) > 0.001 }) ?? true {
                failures.append("\(label): price \(paid.map { "\($0)" } ?? "none"), expected \(price)")
            }
        }
        // The subscription RevenueDot shows is the one the simulator holds.
        let kept = try world.simulated(user)
        guard let product = kept["productId"]?.stringValue, case .integer(let expires)? = kept["expiresMs"],
            case .integer(let purchased)? = kept["purchaseMs"]
        else { return failures + ["\(label): the simulator's state is unreadable: \(kept)"] }
        let shown = subscriber["subscriptions"]?[product]
        if shown?["store_transaction_id"] != kept["transactionId"] {
            failures.append(
                "\(label): transaction \(shown?["store_transaction_id"] ?? .null), simulator \(kept["transactionId"] ?? .null)")
        }
        // A grace period moves the subscription's expires_date to its end, as RevenueCat serves it.
        let graceEnd = shown?["grace_period_expires_date"]?.stringValue.flatMap(Self.milliseconds)
        if kept["refundedMs"] == nil || kept["refundedMs"] == .null,
            shown?["expires_date"]?.stringValue.flatMap(Self.milliseconds) != max(expires / 1000 * 1000, graceEnd ?? .min)
        {
            failures.append("\(label): expires \(shown?["expires_date"] ?? .null), simulator \(expires)")
        }
        if let lasts = step.lasts, abs(lasts.end(after: purchased) - expires) > 1 {
            failures.append("\(label): the period ends at \(expires), expected \(lasts.end(after: purchased))")
        }
        return failures + (try checkCommerce(step, label, shown: shown, kept: kept, in: world))
    }

    /// What `advanced_commerce` shows, and whether the request that made the terms is completed.
    static func checkCommerce(_ step: Step, _ label: String, shown: JSONValue?, kept: JSONValue, in world: SimulatorWorld) throws
        -> [String]
    {
        var failures: [String] = []
        let commerce = shown?["advanced_commerce"]
        func skus(_ items: JSONValue?) -> [String] { items?.arrayValue?.compactMap { $0["SKU"]?.stringValue } ?? [] }
        if let items = step.items, skus(commerce?["items"]) != items {
            failures.append("\(label): advanced_commerce items \(commerce?["items"] ?? .null), expected \(items)")
        }
        // The items add up to what the period charged, each at its offer's price while one runs.
        if step.items != nil, let charged = step.price {
            let amounts = (commerce?["items"]?.arrayValue ?? []).map { item -> Double in
                let offered = item["offer"]?["price"] ?? item["price"]
                switch offered?["amount"] {
                case .number(let amount)?: return amount
                case .integer(let amount)?: return Double(amount)
                default: return .nan
                }
            }
            let total = amounts.reduce(0, +)
            if abs(total - charged) > 0.001 {
                failures.append("\(label): items \(commerce?["items"] ?? .null) add up to \(total), charged \(charged)")
            }
        }
        if let scheduled = step.scheduled, skus(commerce?["scheduled_changes"]?["items"]) != scheduled {
            failures.append("\(label): scheduled changes \(commerce?["scheduled_changes"] ?? .null), expected \(scheduled)")
        }
        if let reference = kept["commerce"]?["next"]?["requestReferenceId"]?.stringValue {
            let request = try world.get("/v1/advanced-commerce/demo/requests/\(reference)")
            if request["status"] != .string("completed") { failures.append("\(label): request \(reference) is \(request)") }
        }
        return failures
    }

    /// `--request FILE` has another request signed and charged; one RevenueDot refuses is
    /// neither, and the refusal is Apple's error.
    @Test func aRequestFileIsSignedAndCharged() throws {
        let world = try SimulatorWorld()
        defer { world.shutdown() }
        var yearly = try JSONValue(parsing: Data(CommerceRequestExamples.subscribe.utf8))
        yearly["period"] = .string("P1Y")
        yearly["items"] = .array([
            .object([
                "SKU": .string("ARCHIVE_1Y"), "displayName": .string("Archive"), "description": .string("Every match since 1990"),
                "price": .integer(49_990),
            ])
        ])
        let file = try world.directory.write("yearly.json", yearly.serialized())
        let played = try world.simulate(["commerce-subscribe", "--user", "yara", "--request", file])
        #expect(played.status == 0, "\(played.output)")
        let pass = try world.subscriber("yara")["subscriptions"]?["commerce.pass"]
        #expect(pass?["advanced_commerce"]?["period"] == .string("P1Y"))
        #expect(pass?["price"]?["amount"] == .number(49.99))
        let kept = try world.simulated("yara")
        guard case .integer(let purchased)? = kept["purchaseMs"], case .integer(let expires)? = kept["expiresMs"] else {
            Issue.record("\(kept)")
            return
        }
        #expect(expires == Length.months(12).end(after: purchased))

        yearly["items"] = .array([
            .object(["SKU": .string("FREE"), "displayName": .string("Free"), "description": .string("Free")])
        ])
        let refused = try world.simulate([
            "commerce-subscribe", "--user", "yves", "--request", try world.directory.write("bad.json", yearly.serialized()),
        ])
        #expect(refused.status == 1)
        #expect(refused.output.contains("RevenueDot did not sign the request: NullPriceError"), "\(refused.output)")
        #expect(!refused.output.contains("→ SUBSCRIBED"))
        #expect(try world.events(of: "yves").isEmpty)
    }

    /// The requests the commerce stories send are the examples under docs/advanced-commerce.
    @Test(arguments: CommerceRequestExamples.byFile.keys.sorted())
    func commerceExamplesAreTheDocumentedOnes(file: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let documented = try Data(contentsOf: root.appendingPathComponent("docs/advanced-commerce/\(file)"))
        let builtIn = try #require(CommerceRequestExamples.byFile[file])
        #expect(try JSONValue(parsing: documented) == JSONValue(parsing: Data(builtIn.utf8)))
    }

    static func milliseconds(_ iso: String) -> Int64? {
        ISO8601DateFormatter().date(from: iso).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .number(let number)?: number
        case .integer(let integer)?: Double(integer)
        default: nil
        }
    }
}
