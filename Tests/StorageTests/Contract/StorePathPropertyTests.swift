import AppStore
import Foundation
import Subscriptions
import SubscriptionsFixtures
import Testing
import Threads

@testable import Storage

/// The store's path gives what the pure ledger gives: the same effects for every input, in any
/// delivery order, with duplicates, then the same timers fired.
///
/// The store keeps a purchase's newest fact at hand and the others in rows it reads only when
/// the reducer needs them (`PurchaseJournal.needsEveryFact(toReceive:)`), and a cache of what
/// it decoded; the pure ledger holds everything in memory. A rule of the reducer that reads
/// facts the store did not load shows here as an effect only one side has.
@Suite("Storage contract: the store's path is the ledger's")
struct StorePathPropertyTests {
    typealias S = StoreUnderTest

    @Test(arguments: ContractEngine.allCases.flatMap { engine in (1...Self.seeds(engine)).map { (engine, $0) } })
    func everyInputHasTheLedgersEffects(_ engine: ContractEngine, seed: UInt64) throws {
        let lifecycle = LifecycleGenerator(seed: seed, length: Int(seed % 12) + 4, postsRefundedTransactions: true)
        for (index, order) in LifecycleGenerator.orders(of: lifecycle.steps, seed: seed, count: 2).enumerated() {
            let under = try StoreUnderTest(engine)
            let cache = index.isMultiple(of: 2) ? LedgerCache() : nil
            var ledger = Ledger(configuration: S.app.configuration)
            var timers: [String: ExpirationTimer] = [:]
            let link = Ledger.Input.linked(.subscription(originalTransactionId: Apple.original), appUserId: "user")
            let inputs = [LifecycleGenerator.Step(input: link, atMs: Apple.t0)] + order
            var notified: Set<String> = []
            for (position, step) in inputs.enumerated() {
                // The store takes a notification once (by its UUID) before any reaches the ledger.
                if case .notificationReceived(let facts) = step.input, !notified.insert(facts.notificationUUID).inserted {
                    continue
                }
                let atMs = max(step.atMs, inputs[..<position].map(\.atMs).max() ?? step.atMs)
                let expected = ledger.apply(step.input, at: Date(timeIntervalSince1970: Double(atMs) / 1000))
                for case .schedule(let timer) in expected { timers[timer.id] = timer }
                let stored = try Self.effects(in: under) { transaction in
                    try LedgerInputs.apply(step.input, app: S.app, atMs: atMs, cache: cache, in: transaction)
                }
                #expect(stored == expected, "seed \(seed), order \(index), input \(position): \(step.input)")
                if stored != expected { return }
            }
            // Then every timer, in the order the scheduler finds them due.
            while let due = timers.values.min(by: { ($0.fireAtMs, $0.id) < ($1.fireAtMs, $1.id) }) {
                timers[due.id] = nil
                let atMs = max(due.fireAtMs, lifecycle.endMs)
                let expected = ledger.apply(.timerFired(due), at: Date(timeIntervalSince1970: Double(atMs) / 1000))
                for case .schedule(let timer) in expected { timers[timer.id] = timer }
                let stored = try Self.effects(in: under) { transaction in
                    try TimerFiring.fire(due, app: S.app, atMs: atMs, deliver: true, cache: cache, in: transaction)
                }
                #expect(stored == expected, "seed \(seed), order \(index), timer \(due.id)")
            }
        }
    }

    /// Auto-renew off, on and off, each seen by a notice and by answers of Apple's (one of them
    /// only restating), in orders where a notice in order restates a change an answer further
    /// back reported, and where late facts split a change: the store loads what the run needs
    /// (`needsEveryFact`), so it reports as the ledger does.
    @Test(arguments: ContractEngine.allCases)
    func autoRenewReportsAreTheLedgersInEveryOrder(_ engine: ContractEngine) throws {
        let period = Apple.transaction(Apple.original, purchase: Apple.t0)
        func at(_ days: Int64) -> Int64 { Apple.t0 + days * Apple.day }
        func notice(_ uuid: String, _ days: Int64, on: Bool) -> Ledger.Input {
            .notificationReceived(
                Apple.notification(
                    .didChangeRenewalStatus, on ? .autoRenewEnabled : .autoRenewDisabled, uuid: uuid, signed: at(days),
                    transaction: period, renewal: Apple.renewal(autoRenew: on)))
        }
        func answer(_ days: Int64, on: Bool) -> Ledger.Input {
            var transaction = period
            transaction.signedDate = at(days)
            var renewal = Apple.renewal(autoRenew: on)
            renewal.signedDate = at(days)
            return .appleAnswered(transaction, renewalInfo: renewal, appUserId: nil)
        }
        let facts = [
            answer(6, on: false), answer(7, on: false), notice("off-8", 8, on: false), notice("on-10", 10, on: true),
            answer(12, on: true), notice("off-15", 15, on: false), answer(16, on: false),
        ]
        let orders = [[0, 1, 2, 3, 4, 5, 6], [0, 1, 4, 6, 2, 3, 5], [6, 5, 0, 1, 2, 4, 3], [4, 0, 6, 1, 3, 2, 5]]
        for order in orders {
            let under = try StoreUnderTest(engine)
            var ledger = Ledger(configuration: S.app.configuration)
            let buy = Ledger.Input.notificationReceived(
                Apple.notification(
                    .subscribed, .initialBuy, uuid: "buy", signed: Apple.t0, transaction: period, renewal: Apple.renewal()))
            let inputs = [Ledger.Input.linked(.subscription(originalTransactionId: Apple.original), appUserId: "user"), buy]
            for (position, input) in (inputs + order.map { facts[$0] }).enumerated() {
                let atMs = at(20) + Int64(position)
                let expected = ledger.apply(input, at: Date(timeIntervalSince1970: Double(atMs) / 1000))
                let stored = try Self.effects(in: under) { transaction in
                    try LedgerInputs.apply(input, app: S.app, atMs: atMs, in: transaction)
                }
                #expect(stored == expected, "order \(order), input \(position)")
            }
        }
    }

    /// How many lifecycles each engine plays: PostgreSQL's round trips make its writes slower.
    static func seeds(_ engine: ContractEngine) -> UInt64 { engine == .sqlite ? 40 : 12 }

    /// The effects of what `body` applies, in one write of the store.
    static func effects(
        in under: StoreUnderTest, _ body: @escaping @Sendable (WriteTransaction) throws -> AppliedInput
    ) throws -> [Ledger.Effect] {
        let effects = Locked<[Ledger.Effect]>([])
        try under.write { transaction in
            let applied = try body(transaction)
            effects.withLock { $0 = applied.effects }
        }
        return effects.value
    }
}
