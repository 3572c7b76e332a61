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
}
