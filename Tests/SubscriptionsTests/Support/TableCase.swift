import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// One row of a notification table: state before, the notification, the events, a state check.
struct TableCase: Sendable, CustomTestStringConvertible {
    let name: String
    let setup: [VerifiedNotificationFacts]
    let notification: VerifiedNotificationFacts
    let events: [EventType]
    /// Expectations on the ledger before and after the notification, and the events it made.
    let check: @Sendable (_ before: Ledger, _ after: Ledger, _ events: [Event]) -> Void

    init(
        _ name: String, setup: [VerifiedNotificationFacts] = [Fixture.buy], _ notification: VerifiedNotificationFacts,
        events: [EventType], check: @escaping @Sendable (Ledger, Ledger, [Event]) -> Void = { _, _, _ in }
    ) {
        self.name = name
        self.setup = setup
        self.notification = notification
        self.events = events
        self.check = check
    }

    var testDescription: String { name }

    /// Runs the row and checks its events, its own expectations, and that the state is its fold.
    func verify() {
        let (before, after, events) = run()
        #expect(events.types == self.events)
        #expect(events.filter { $0.type != .test }.allSatisfy { $0.appUserId == "user" })
        check(before, after, events)
        for state in after.subscriptions.values { #expect(state.refolded() == state) }
        for purchase in after.oneTimePurchases.values { #expect(purchase.refolded() == purchase) }
    }

    /// Runs the row on a fresh ledger whose subscription belongs to `user`.
    func run() -> (before: Ledger, after: Ledger, events: [Event]) {
        var harness = Harness()
        for facts in setup { harness.send(facts) }
        let before = harness.ledger
        let events = harness.send(notification)
        return (before, harness.ledger, events)
    }
}

/// The subscription every table row starts from, and the usual notifications about it.
enum Fixture {
    static func day(_ count: Int64) -> Int64 { Apple.t0 + count * Apple.day }

    /// How long past a monthly period's end its EXPIRATION waits for Apple's renewal notice.
    static let renewalNoticeWait = SubscriptionState.longestRenewalNoticeWaitMs

    /// The first period: monthly, bought at t0, expiring at day 30.
    static let p1 = Apple.transaction("1000", purchase: Apple.t0)
    /// The second period, from day 30 to day 60.
    static let p2 = Apple.transaction("1001", purchase: day(30))

    static let buy = Apple.notification(
        .subscribed, .initialBuy, uuid: "n-buy", signed: Apple.t0, transaction: p1, renewal: Apple.renewal())
    static let disable = Apple.notification(
        .didChangeRenewalStatus, .autoRenewDisabled, uuid: "n-disable", signed: day(5), transaction: p1,
        renewal: Apple.renewal(autoRenew: false))
    static let failWithGrace = Apple.notification(
        .didFailToRenew, .gracePeriod, uuid: "n-fail", signed: day(30), transaction: p1,
        renewal: Apple.renewal(retry: true, grace: day(46)))
    static let failNoGrace = Apple.notification(
        .didFailToRenew, uuid: "n-fail", signed: day(30), transaction: p1, renewal: Apple.renewal(retry: true))
    static let downgrade = Apple.notification(
        .didChangeRenewalPref, .downgrade, uuid: "n-downgrade", signed: day(10), transaction: p1,
        renewal: Apple.renewal(next: Apple.basic))
    static let refund = Apple.notification(
        .refund, uuid: "n-refund", signed: day(10),
        transaction: Apple.transaction("1000", purchase: Apple.t0, revokedAt: day(10)))
    static let pricePending = Apple.notification(
        .priceIncrease, .pending, uuid: "n-price", signed: day(20), transaction: p1,
        renewal: Apple.renewal(priceIncrease: .customerHasNotResponded))

    /// The subscription's fold without its history and date: what "changes nothing" compares.
    static func fold(_ ledger: Ledger) -> SubscriptionState? {
        guard var state = ledger.subscriptions[Apple.original] else { return nil }
        state.journal = PurchaseJournal()
        state.newestSignedDateMs = nil
        return state
    }
}
