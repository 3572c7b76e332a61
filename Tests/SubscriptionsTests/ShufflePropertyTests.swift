import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Issue 4 item 3's property: any delivery order, with duplicates, ends in the same state and
/// never repeats an event id.
///
/// Every event but `EXPIRATION` is the same in every order. An `EXPIRATION` is the timer's:
/// it reads the lapse as known when it fires, or when a resubscription closes the lapse before
/// the timer did, so which facts had arrived by then decide which lapses get one and how they
/// are named (as with timers between deliveries); the last lapse has one in every order or in none.
@Suite struct ShufflePropertyTests {
    static let seeds: [UInt64] = Array(1...150)

    /// Delivers `inputs` in the given order (each at the given moment), then feeds every timer
    /// due by `endMs`: the brief's protocol, timers only at the end.
    static func deliverThenExpire(_ inputs: [LifecycleGenerator.Step], endMs: Int64) -> Harness {
        var shop = Harness()
        for step in inputs { shop.apply(step.input, atMs: step.atMs) }
        shop.advance(to: endMs)
        return shop
    }

    @Test(arguments: seeds)
    func everyShuffleEndsInTheSameState(seed: UInt64) {
        let lifecycle = LifecycleGenerator(seed: seed, length: Int(seed % 12) + 4)
        var reference: Harness?
        for order in LifecycleGenerator.orders(of: lifecycle.steps, seed: seed, count: 8) {
            let deliveryTimes = order.indices.map { lifecycle.endMs - Int64(order.count - $0) }
            let timed = zip(order, deliveryTimes).map { LifecycleGenerator.Step(input: $0.input, atMs: $1) }
            let shop = Self.deliverThenExpire(timed, endMs: lifecycle.endMs)
            #expect(Set(shop.outbox.map(\.id)).count == shop.outbox.count, "an event id repeated")
            for state in shop.ledger.subscriptions.values { #expect(state.refolded() == state) }
            guard let expected = reference else {
                reference = shop
                continue
            }
            let sameState = Self.withoutEventHistory(shop.ledger) == Self.withoutEventHistory(expected.ledger)
            #expect(sameState, "seed \(seed): a shuffle ended in another state")
            #expect(Self.nonTimer(shop) == Self.nonTimer(expected))
            let finalLapse = expected.ledger.subscriptions[Apple.original]?.expirationEventId
            #expect(
                finalLapse.map { id in shop.outbox.contains { $0.id == id } }
                    == finalLapse.map { id in expected.outbox.contains { $0.id == id } })
            if !sameState { return }
        }
    }

    /// Realistic delivery: late and repeated notifications, the scheduler ticking in between.
    ///
    /// The event history may then differ (an `EXPIRATION` fired before a late renewal arrived is
    /// real), but the folded state, every non-timer event, and "never twice" may not.
    @Test(arguments: seeds.prefix(60))
    func lateDeliveryWithTimersKeepsTheStateAndNeverRepeats(seed: UInt64) {
        let lifecycle = LifecycleGenerator(seed: seed, length: Int(seed % 12) + 4)
        var random = SplitMix64(seed: seed &* 31)
        let onTime = Self.deliverWithScheduler(lifecycle.steps, endMs: lifecycle.endMs)
        var deliveries: [LifecycleGenerator.Step] = []
        for step in lifecycle.steps {
            let delay = random.chance(30) ? random.int64(in: 1...(3 * Apple.day)) : 0
            deliveries.append(LifecycleGenerator.Step(input: step.input, atMs: step.atMs + delay))
            if random.chance(30) {
                deliveries.append(
                    LifecycleGenerator.Step(input: step.input, atMs: step.atMs + random.int64(in: 1...(72 * 3_600_000))))
            }
        }
        let late = Self.deliverWithScheduler(deliveries.sorted { $0.atMs < $1.atMs }, endMs: lifecycle.endMs)
        #expect(Set(late.outbox.map(\.id)).count == late.outbox.count, "an event id repeated")
        let sameState = Self.withoutEventHistory(late.ledger) == Self.withoutEventHistory(onTime.ledger)
        #expect(sameState, "seed \(seed): late delivery ended in another state")
        #expect(Self.nonTimer(late) == Self.nonTimer(onTime))
        let finalLapse = onTime.ledger.subscriptions[Apple.original]?.expirationEventId
        #expect(
            finalLapse.map { id in late.outbox.contains { $0.id == id } }
                == finalLapse.map { id in onTime.outbox.contains { $0.id == id } })
    }

    static func deliverWithScheduler(_ deliveries: [LifecycleGenerator.Step], endMs: Int64) -> Harness {
        var shop = Harness()
        for delivery in deliveries {
            shop.advance(to: delivery.atMs)
            shop.apply(delivery.input, atMs: delivery.atMs)
        }
        shop.advance(to: endMs)
        return shop
    }

    /// The ids of every event but `EXPIRATION`.
    static func nonTimer(_ shop: Harness) -> Set<String> {
        Set(shop.outbox.filter { $0.type != .expiration }.map(\.id))
    }

    /// The ledger without what only the event history decides (ids emitted, sequence counters).
    static func withoutEventHistory(_ ledger: Ledger) -> Ledger {
        var copy = ledger
        for key in copy.subscriptions.keys { copy.subscriptions[key]?.journal.emittedEventIds = [] }
        for key in copy.oneTimePurchases.keys { copy.oneTimePurchases[key]?.journal.emittedEventIds = [] }
        for key in copy.customers.keys { copy.customers[key]?.lastSequence = 0 }
        return copy
    }
}
