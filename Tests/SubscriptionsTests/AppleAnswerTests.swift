import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// What the App Store Server API says of a purchase when asked (reconciliation, import), as
/// reducer inputs: the events a missed renewal-status notification would have given, given once
/// whichever of the answer and the notification comes first; and a Transaction History folded
/// in purchase order, whatever order it is applied in.
@Suite struct AppleAnswerTests {
    let day = Fixture.day

    /// Apple's answer, signed at `signed`, with renewal info saying auto-renew is `autoRenew`.
    func answer(signed: Int64, autoRenew: Bool, transaction: JWSTransactionDecodedPayload = Fixture.p1) -> Ledger.Input {
        var signedTransaction = transaction
        signedTransaction.signedDate = signed
        var renewal = Apple.renewal(autoRenew: autoRenew)
        renewal.signedDate = signed
        return .appleAnswered(signedTransaction, renewalInfo: renewal, appUserId: nil)
    }

    @Test func autoRenewTurnedOffAndOnSeenOnlyByTheAPIGivesCancellationAndUncancellation() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let off = shop.apply(answer(signed: day(6), autoRenew: false), atMs: day(6))
        #expect(off.types == [.cancellation])
        #expect(off.first?.cancelReason == .unsubscribe)
        #expect(shop.subscription.autoRenewEnabled == false)
        // The same answer read again, and an answer that says nothing new: nothing.
        #expect(shop.apply(answer(signed: day(6), autoRenew: false)).isEmpty)
        #expect(shop.apply(answer(signed: day(7), autoRenew: false), atMs: day(7)).isEmpty)
        let on = shop.apply(answer(signed: day(8), autoRenew: true), atMs: day(8))
        #expect(on.types == [.uncancellation])
    }

    @Test func theLateNotificationOfAChangeTheAPIReportedGivesNoSecondEvent() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.apply(answer(signed: day(6), autoRenew: false), atMs: day(6)).types == [.cancellation])
        // Apple's notification of that change (signed on day 5) arrives later: already told.
        #expect(shop.send(Fixture.disable).isEmpty)
        #expect(shop.outbox.types == [.initialPurchase, .cancellation])
        #expect(shop.subscription.autoRenewEnabled == false)
    }

    @Test func anAnswerAfterTheNotificationOfTheSameChangeGivesNothing() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.send(Fixture.disable).types == [.cancellation])
        #expect(shop.apply(answer(signed: day(6), autoRenew: false), atMs: day(6)).isEmpty)
        #expect(shop.outbox.types == [.initialPurchase, .cancellation])
    }

    @Test func aNotificationNewerThanTheAnswerStillCounts() {
        var shop = Harness()
        shop.send(Fixture.buy)
        #expect(shop.apply(answer(signed: day(6), autoRenew: false), atMs: day(6)).types == [.cancellation])
        #expect(shop.apply(answer(signed: day(7), autoRenew: true), atMs: day(7)).types == [.uncancellation])
        // Turned off again on day 8, told by its notification: a change of its own.
        let again = Apple.notification(
            .didChangeRenewalStatus, .autoRenewDisabled, uuid: "n-disable-2", signed: day(8), transaction: Fixture.p1,
            renewal: Apple.renewal(autoRenew: false))
        #expect(shop.send(again).types == [.cancellation])
    }

    /// Auto-renew off (day 5), on (day 10), off (day 15), each seen by its notification and by
    /// an answer of Apple's a day or two later: every arrival order reports each change once, so
    /// three events follow the purchase, alternating, and the state is the same. (Keyed per
    /// period and direction, the third change was lost when the answers came first.)
    @Test func everyChangeIsReportedOnceInEveryOrder() {
        let renewal = { (on: Bool) in Apple.renewal(autoRenew: on) }
        let facts: [Ledger.Input] = [
            .notificationReceived(
                Apple.notification(
                    .didChangeRenewalStatus, .autoRenewDisabled, uuid: "off-5", signed: day(5), transaction: Fixture.p1,
                    renewal: renewal(false))),
            answer(signed: day(6), autoRenew: false),
            .notificationReceived(
                Apple.notification(
                    .didChangeRenewalStatus, .autoRenewEnabled, uuid: "on-10", signed: day(10), transaction: Fixture.p1,
                    renewal: renewal(true))),
            answer(signed: day(12), autoRenew: true),
            .notificationReceived(
                Apple.notification(
                    .didChangeRenewalStatus, .autoRenewDisabled, uuid: "off-15", signed: day(15), transaction: Fixture.p1,
                    renewal: renewal(false))),
            answer(signed: day(16), autoRenew: false),
        ]
        var states: Set<SubscriptionState> = []
        for order in Self.orders(Array(facts.indices)) {
            var shop = Harness()
            shop.send(Fixture.buy)
            for index in order { shop.apply(facts[index], atMs: day(17)) }
            // In the order they arrived: a late notice reports its change late.
            let reported = shop.outbox.types.dropFirst()
            #expect(
                shop.outbox.first?.type == .initialPurchase && reported.count == 3
                    && reported.filter { $0 == .cancellation }.count == 2,
                "order \(order): \(shop.outbox.types)")
            var state = shop.subscription
            state.journal = PurchaseJournal()
            states.insert(state)
        }
        #expect(states.count == 1)
    }

    /// Auto-renew turned off (its notice on day 5, perhaps lost), seen by answers before and after
    /// the period's end (day 30) and by its EXPIRED `VOLUNTARY`: in every order of any of them,
    /// one CANCELLATION when the notice or the answer before the end is among them, none when only
    /// the end was seen (the EXPIRED reports no change, nor does an answer after it); the state is
    /// the same. (An answer after the end, arriving before the EXPIRED, reported one.)
    @Test(arguments: [[0, 1, 2, 3], [1, 2, 3], [2, 3], [0, 2, 3]])
    func aVoluntaryLapseSeenLateIsReportedAlikeInEveryOrder(kept: [Int]) {
        let expired = Apple.notification(
            .expired, .voluntary, uuid: "n-expired", signed: day(30), transaction: Fixture.p1,
            renewal: Apple.renewal(autoRenew: false, intent: .customerCancelled))
        let facts: [Ledger.Input] = [
            .notificationReceived(Fixture.disable), answer(signed: day(6), autoRenew: false),
            .notificationReceived(expired), answer(signed: day(31), autoRenew: false),
        ]
        let expected = kept.contains(0) || kept.contains(1) ? 1 : 0
        var states: Set<SubscriptionState> = []
        for order in Self.orders(kept) {
            var shop = Harness()
            shop.send(Fixture.buy)
            for index in order { shop.apply(facts[index], atMs: day(32)) }
            let cancellations = shop.outbox.filter { $0.type == .cancellation }
            #expect(cancellations.count == expected, "order \(order): \(shop.outbox.types)")
            #expect(cancellations.allSatisfy { $0.cancelReason == .unsubscribe })
            var state = shop.subscription
            state.journal = PurchaseJournal()
            states.insert(state)
        }
        #expect(states.count == 1)
    }

    /// Every order of `items`.
    static func orders(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let first = rest.remove(at: index)
            return orders(rest).map { [first] + $0 }
        }
    }

    /// An answer's event an earlier build sent, under its per-period id, still stands for the
    /// change: the late notification of it gives no second CANCELLATION after an upgrade.
    @Test func anEventSentUnderTheEarlierIdStillCounts() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let sent = shop.apply(answer(signed: day(6), autoRenew: false), atMs: day(6))
        #expect(sent.types == [.cancellation])
        var state = shop.subscription
        let legacy = state.legacyAnswerAutoRenewCause(period: state.transactionId, enabled: false) ?? ""
        state.journal.emittedEventIds = state.journal.emittedEventIds.filter { $0 != sent.first?.id }
        let recorded = state.journal.recordEmission(EventID.make(cause: legacy))
        #expect(recorded)
        shop.ledger.subscriptions[Apple.original] = state
        #expect(shop.send(Fixture.disable).isEmpty)
    }

    /// An earlier build's report stands for the one change it was sent for: a late notice that
    /// splits its run does not make that answer report again under the new id.
    @Test func aLateNoticeDoesNotMakeAnEarlierBuildsReportAgain() {
        var shop = Harness()
        shop.send(Fixture.buy)
        let sent = shop.apply(answer(signed: day(6), autoRenew: false), atMs: day(6))
        var state = shop.subscription
        let legacy = state.legacyAnswerAutoRenewCause(period: state.transactionId, enabled: false) ?? ""
        state.journal.emittedEventIds = state.journal.emittedEventIds.filter { $0 != sent.first?.id }
        _ = state.journal.recordEmission(EventID.make(cause: legacy))
        shop.ledger.subscriptions[Apple.original] = state
        #expect(shop.apply(answer(signed: day(12), autoRenew: true), atMs: day(12)).types == [.uncancellation])
        let late = Apple.notification(
            .didChangeRenewalStatus, .autoRenewEnabled, uuid: "n-enable-10", signed: day(10), transaction: Fixture.p1,
            renewal: Apple.renewal(autoRenew: true))
        #expect(shop.send(late).isEmpty)
    }

    /// A resubscription after a lapse with auto-renew off: the new period is the report (its
    /// RENEWAL), whichever of Apple's answer and the RESUBSCRIBE notice comes first; the answer
    /// does not add an UNCANCELLATION the notice never gives.
    @Test(arguments: [false, true])
    func aResubscriptionSeenFirstByAnAnswerIsNoUncancellation(answerFirst: Bool) {
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(Fixture.disable)
        let resubscribed = Apple.transaction("1002", purchase: day(40))
        let notice = Apple.notification(
            .subscribed, .resubscribe, uuid: "n-resubscribe", signed: day(40), transaction: resubscribed,
            renewal: Apple.renewal(autoRenew: true))
        let steps: [Ledger.Input] = [
            .notificationReceived(notice), answer(signed: day(41), autoRenew: true, transaction: resubscribed),
        ]
        for input in answerFirst ? steps.reversed() : steps { shop.apply(input, atMs: day(42)) }
        let after = shop.outbox.types.drop { $0 != .cancellation }.dropFirst()
        #expect(!after.contains(.uncancellation), "\(shop.outbox.types)")
        #expect(after.filter { $0 == .renewal }.count == 1, "\(shop.outbox.types)")
    }

    @Test func transactionHistoryFoldsInPurchaseOrderWhateverTheOrderApplied() {
        let periods = (0..<4).map { index in
            var transaction = Apple.transaction(String(1000 + index), purchase: day(Int64(index) * 30))
            transaction.signedDate = day(200)
            return transaction
        }
        let orders = [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]]
        var states: [SubscriptionState] = []
        var outboxes: [[EventType]] = []
        for order in orders {
            var shop = Harness(nowMs: day(200), owner: nil)
            for index in order { shop.apply(.appleHistory(periods[index], appUserId: "imported")) }
            shop.apply(answer(signed: day(200), autoRenew: true, transaction: periods[3]))
            states.append(shop.subscription)
            outboxes.append(shop.outbox.sorted { $0.id < $1.id }.map(\.type))
            #expect(shop.subscription.transactionId == "1003")
            #expect(shop.subscription.journal.ownerAppUserId == "imported")
            #expect(shop.outbox.filter { $0.type == .initialPurchase }.count == 1)
            #expect(shop.outbox.filter { $0.type == .renewal }.count == 3)
            if order == orders[0] { #expect(shop.outbox.first { $0.transactionId == "1002" }?.renewalNumber == 3) }
        }
        #expect(Set(states).count == 1)
        #expect(Set(outboxes).count == 1)
    }

    /// An import of a subscription that lapsed: no EXPIRED notification, only Apple's renewal
    /// info, signed after the end, whose expiration intent says why (a price increase the
    /// customer did not accept), not only that auto-renew is off.
    @Test(arguments: [
        (ExpirationIntent.customerDidNotConsentToPriceIncrease, LapseReason.priceIncrease),
        (.customerCancelled, .unsubscribe), (.billingError, .billingError), (.productNotAvailable, .unknown),
    ])
    func anImportedLapseSaysApplesExpirationIntent(intent: ExpirationIntent, reason: LapseReason) {
        var shop = Harness(nowMs: day(40), owner: nil)
        var period = Fixture.p1
        period.signedDate = day(40)
        var renewal = Apple.renewal(autoRenew: false, intent: intent)
        renewal.signedDate = day(40)
        let events =
            shop.apply(.appleAnswered(period, renewalInfo: renewal, appUserId: "imported"), atMs: day(40))
            + shop.advance(to: day(41))
        #expect(events.first { $0.type == .expiration }?.expirationReason == reason, "\(events.map(\.type))")
    }

    /// Asked after the period ended, Apple's answer tells of auto-renew off and of a billing
    /// retry that began at the period's end at the latest, not when asked (an import days later).
    @Test func whatAnAnswerTellsLateIsDetectedByThePeriodsEnd() throws {
        let end = try #require(Fixture.p1.expiresDate)
        for (autoRenew, retry) in [(false, false), (true, true)] {
            var shop = Harness(nowMs: end + day(3), owner: nil)
            var period = Fixture.p1
            period.signedDate = end + day(3)
            var renewal = Apple.renewal(autoRenew: autoRenew, retry: retry)
            renewal.signedDate = end + day(3)
            shop.apply(.appleAnswered(period, renewalInfo: renewal, appUserId: "imported"))
            if retry {
                #expect(shop.subscription.billingIssueDetectedAtMs == end)
            } else {
                #expect(shop.subscription.unsubscribeDetectedAtMs == end)
            }
        }
        // Told while the period runs: when told.
        var shop = Harness()
        shop.send(Fixture.buy)
        shop.send(Fixture.disable)
        #expect(shop.subscription.unsubscribeDetectedAtMs == day(5))
        // A cancel in billing retry, after the period's end, is told when it happens.
        var retrying = Harness()
        retrying.send(Fixture.buy)
        retrying.send(Fixture.failNoGrace)
        retrying.send(
            Apple.notification(
                .didChangeRenewalStatus, .autoRenewDisabled, uuid: "n-disable-in-retry", signed: day(33),
                transaction: Fixture.p1, renewal: Apple.renewal(autoRenew: false, retry: true)))
        #expect(retrying.subscription.unsubscribeDetectedAtMs == day(33))
        #expect(retrying.subscription.billingIssueDetectedAtMs == day(30))
    }
}
