import AppStore
import Foundation
import Subscriptions
import Testing
import Threads

@testable import Storage

/// The storage contract: what every engine's store guarantees, written against the store's
/// typed operations only (no SQL), so that each engine runs the same tests.
@Suite("Storage contract")
struct StoreContractTests {
    typealias S = StoreUnderTest

    @Test(arguments: ContractEngine.allCases)
    func aNotificationIsStoredOnceAndAppliedInTheSameWrite(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        #expect(try under.subscribe(1, original: "100") == .stored)
        #expect(try under.subscribe(1, original: "100") == .duplicate)
        #expect(try under.store.notification(uuid: "sub-100")?.state == .applied)
        let view = try #require(try under.view(S.customer(1)))
        #expect(view.purchases.map(\.productId) == ["pro.monthly"])
        #expect(try under.events().map(\.type) == ["INITIAL_PURCHASE"])
    }

    /// A copy accepted by its app takes up the notification stored held under another app's URL:
    /// moved to that app and applied in the same write; a held copy, or any copy after, is a duplicate.
    @Test(arguments: ContractEngine.allCases)
    func anAcceptedCopyTakesUpAHeldNotification(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        let transaction = S.transaction(
            "300", original: "300", purchase: S.t0, expires: S.t0 + 30 * S.day, customer: S.customer(3))
        let accepted = try S.record(
            .subscribed, .initialBuy, uuid: "sub-300", at: S.t0, transaction: transaction,
            renewal: S.renewal(original: "300", signed: S.t0))
        var held = accepted
        (held.appId, held.state, held.stateReason) = ("other", .held, "bundleId \"com.example.app\", expected another")
        // Other bytes under the same UUID, checked only against the other app's roots.
        (held.signedPayload, held.receivedAt) = ("eyJhbGciOiJFUzI1NiJ9.b3RoZXI.c2lnbmF0dXJl", S.t0 - 1000)
        #expect(try under.store.store(held) == .stored)
        #expect(try under.store.store(held) == .duplicate)
        #expect(try under.view(S.customer(3)) == nil)

        #expect(try under.store.store(accepted) == .takenUp)
        let row = try #require(try under.store.notification(uuid: "sub-300"))
        #expect((row.appId, row.state, row.stateReason) == (S.appId, .applied, nil))
        #expect((row.signedPayload, row.receivedAt) == (accepted.signedPayload, accepted.receivedAt))
        #expect(try under.view(S.customer(3))?.purchases.map(\.productId) == ["pro.monthly"])
        #expect(try under.events().map(\.type) == ["INITIAL_PURCHASE"])
        #expect(try under.store.store(accepted) == .duplicate)
        #expect(try under.store.store(held) == .duplicate)
        #expect(try under.events().count == 1)
    }

    @Test(arguments: ContractEngine.allCases)
    func eventsHaveIncreasingPositionsAndGaplessSequencesPerCustomer(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        try under.subscribe(1, original: "100")
        try under.subscribe(2, original: "200")
        for period in 1...3 {
            let at = S.t0 + Int64(period) * 30 * S.day
            for (n, original) in [(1, "100"), (2, "200")] {
                let renewal = S.transaction(
                    "\(original)-\(period)", original: original, purchase: at, expires: at + 30 * S.day,
                    customer: S.customer(n))
                #expect(
                    try under.store.store(
                        S.record(.didRenew, uuid: "renew-\(original)-\(period)", at: at, transaction: renewal))
                        == .stored)
            }
        }
        let events = try under.events()
        #expect(events.count == 8)
        #expect(events.map(\.position) == events.map(\.position).sorted())
        #expect(Set(events.map(\.position)).count == events.count)
        for n in [1, 2] {
            let sequences = events.filter { $0.customer == S.customer(n) }.compactMap(\.sequence)
            #expect(sequences == Array(1...4))
        }
        // The feed pages through every event once, in cursor order.
        let firstPage = try under.store.read { (rows) throws(StoreError) in
            try EventRows.page(appId: S.appId, after: 0, limit: 5, from: rows)
        }
        let rest = try under.store.read { (rows) throws(StoreError) in
            try EventRows.page(appId: S.appId, after: firstPage.last?.position ?? 0, limit: 100, from: rows)
        }
        #expect((firstPage + rest).map(\.position) == events.map(\.position))
    }

    @Test(arguments: ContractEngine.allCases)
    func theOutboxDeliversEachEventAndRetriesAFailure(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        try under.subscribe(1, original: "100")
        try under.subscribe(2, original: "200")
        let now = S.t0 + 1000
        func due(at nowMs: Int64) throws -> [DueDelivery] {
            try under.store.read { (rows) throws(StoreError) in
                do { return try Deliveries.due(appId: S.appId, nowMs: nowMs, limit: 10, inFlight: [], from: rows) } catch let
                    error as StoreError
                { throw error } catch { throw StoreError(.corrupt, "\(error)") }
            }
        }
        let first = try due(at: now)
        #expect(first.count == 2)
        let (delivered, failed) = (first[0], first[1])
        try under.write { transaction in
            _ = try Deliveries.record(
                .delivered(status: 200), of: delivered, retryDelaysSeconds: [10], at: now, in: transaction)
            _ = try Deliveries.record(
                .failed(status: 500, reason: "HTTP 500"), of: failed, retryDelaysSeconds: [10], at: now, in: transaction)
        }
        #expect(try due(at: now).isEmpty)
        let retried = try due(at: now + 10_000)
        #expect(retried.map(\.eventId) == [failed.eventId])
        #expect(retried.first?.attempts == 1)
        let status = try under.store.read { (rows) throws(StoreError) in try Deliveries.status(nowMs: now, from: rows) }
        // One app and webhook has a backlog: the failed delivery, pending again and retrying.
        #expect(status.webhooks.count == 1)
        #expect(status.webhooks.first?.appId == S.app.id)
        #expect(status.webhooks.first.map { ($0.pending, $0.retrying, $0.dead) } ?? (0, 0, 0) == (1, 1, 0))
        // Sent again on an operator's word: the delivered one is pending once more.
        let resent = Locked(Deliveries.Resent.noEvent)
        try under.write { transaction in
            let found = try Deliveries.resend(
                eventId: delivered.eventId, webhooks: S.app.webhooks, at: now, in: transaction)
            resent.withLock { $0 = found }
        }
        #expect(resent.value == .due)
        #expect(Set(try due(at: now + 10_000).map(\.eventId)) == [delivered.eventId, failed.eventId])
    }

    @Test(arguments: ContractEngine.allCases)
    func aTimerFiresOnceWhenAccessEnds(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        let expires = S.t0 + 30 * S.day
        try under.subscribe(1, original: "100", expires: expires, autoRenew: false)
        func due(at nowMs: Int64) throws -> [PendingTimers.Due] {
            try under.store.read { (rows) throws(StoreError) in try PendingTimers.due(atMs: nowMs, limit: 10, from: rows) }
        }
        func overdue(at nowMs: Int64) throws -> TimerBacklog {
            try under.store.read { (rows) throws(StoreError) in try PendingTimers.overdue(atMs: nowMs, from: rows) }
        }
        #expect(try due(at: expires - 1).isEmpty)
        #expect(try overdue(at: expires - 1) == TimerBacklog(due: 0, oldestDueAgeSeconds: 0))
        let timers = try due(at: expires + 1)
        #expect(timers.count == 1)
        // Not fired 2.5 s after it came due: the scheduler's lag, as /metrics shows it.
        #expect(try overdue(at: expires + 2500) == TimerBacklog(due: 1, oldestDueAgeSeconds: 2.5))
        let fired = Locked<[Bool]>([])
        for _ in 0..<2 {
            try under.write { transaction in
                for timer in timers {
                    let applied = try LedgerInputs.keepAndApply(.dueTimer(timer), app: S.app, atMs: expires + 1, in: transaction)
                    fired.withLock { $0.append(applied != nil) }
                }
            }
        }
        #expect(fired.value == [true, false], "the second time, the timer is no longer due")
        #expect(try due(at: .max).isEmpty)
        #expect(try overdue(at: .max).due == 0)
        let types = try under.events().map(\.type)
        #expect(types == ["INITIAL_PURCHASE", "EXPIRATION"], "\(types)")
    }

    @Test(arguments: ContractEngine.allCases)
    func aCommerceRequestReferenceIsUsedOnce(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        let request = StoredCommerceRequest(
            appUserId: "alice", operation: "CREATE_SUBSCRIPTION", requestJSON: "{}", token: "t1", createdAtMs: S.t0)
        let outcomes = Locked<[Bool]>([])
        for token in ["t1", "t2"] {
            var attempt = request
            attempt.token = token
            try under.write { [attempt] transaction in
                let fresh = try CommerceRequestRows.insertPending(attempt, appId: S.appId, reference: "ref-1", in: transaction)
                outcomes.withLock { $0.append(fresh) }
            }
        }
        #expect(outcomes.value == [true, false])
        let found = try under.store.read { (rows) throws(StoreError) in
            try CommerceRequestRows.find(appId: S.appId, reference: "ref-1", from: rows)
        }
        #expect(found == request)
    }

    @Test(arguments: ContractEngine.allCases)
    func aPostedTransactionIsStoredOncePerChange(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        let stored = Locked<[Bool]>([])
        let payload = S.transaction("100", original: "100", purchase: S.t0, expires: S.t0 + 30 * S.day, customer: S.customer(1))
        for (customer, digest) in [("alice", "d1"), ("alice", "d1"), ("alice", "d2"), ("bob", "d2")] {
            try under.write { transaction in
                let applied = try LedgerInputs.keepAndApply(
                    .postedTransaction(payload, signed: "jws", appUserId: customer, digest: digest), app: S.app, atMs: S.t0,
                    in: transaction)
                stored.withLock { $0.append(applied != nil) }
            }
        }
        #expect(stored.value == [true, false, true, true])
        // The last post moved the purchase to bob.
        #expect(try under.view("bob")?.purchases.map(\.productId) == ["pro.monthly"])
    }

    @Test(arguments: ContractEngine.allCases)
    func aContactIsKeptOnlyForACustomerThatExists(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        try under.subscribe(1, original: "100")
        try under.write { transaction in
            try CustomerRows.recordContact(appId: S.appId, appUserId: S.customer(1), atMs: S.t0 + 5, in: transaction)
            try CustomerRows.recordContact(appId: S.appId, appUserId: S.customer(1), atMs: S.t0 + 2, in: transaction)
            try CustomerRows.recordContact(appId: S.appId, appUserId: "nobody", atMs: S.t0, in: transaction)
        }
        #expect(try under.view(S.customer(1))?.lastSeenMs == S.t0 + 5)
        #expect(try under.view("nobody") == nil)
    }

    @Test(arguments: ContractEngine.allCases)
    func replayRebuildsWhatReadsShow(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        let expires = S.t0 + 30 * S.day
        try under.subscribe(1, original: "100", expires: expires, autoRenew: false)
        try under.subscribe(2, original: "200")
        // Past the end and the wait for a renewal notice of the one set to renew.
        let later = expires + SubscriptionState.longestRenewalNoticeWaitMs
        try under.write { transaction in
            for timer in try PendingTimers.due(atMs: later, limit: 10, from: transaction) {
                try LedgerInputs.keepAndApply(.dueTimer(timer), app: S.app, atMs: later, in: transaction)
            }
        }
        let before = (
            try under.events().map(\.json), try under.view(S.customer(1))?.purchases, try under.view(S.customer(2))?.purchases
        )
        let replayed = try Replay.run(apps: [S.appId: S.app], verifiers: [:], store: under.store)
        // Two notifications, then both subscriptions' timers.
        #expect(replayed == 4, "\(replayed)")
        let after = (
            try under.events().map(\.json), try under.view(S.customer(1))?.purchases, try under.view(S.customer(2))?.purchases
        )
        #expect(before.0 == after.0)
        #expect(before.1 == after.1)
        #expect(before.2 == after.2)
    }

    /// A timer kept in `timers` for a subscription not yet stored moves into the row its first
    /// notification writes, where the new one replaces it: one timer, never one in each place.
    @Test(arguments: ContractEngine.allCases)
    func aSubscriptionsFirstRowTakesOverATimerKeptForIt(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        let kept = ExpirationTimer(originalTransactionId: "300", fireAtMs: 5)
        try under.write { transaction in try PendingTimers.schedule(kept, appId: S.appId, in: transaction) }
        func pending() throws -> [PendingTimers.Due] {
            try under.store.read { (rows) throws(StoreError) in try PendingTimers.due(atMs: .max, limit: 100, from: rows) }
        }
        #expect(try pending() == [PendingTimers.Due(appId: S.appId, id: kept.id)])
        #expect(try under.subscribe(3, original: "300") == .stored)
        // One timer, and it fires with the subscription's period, not at 5.
        #expect(try pending() == [PendingTimers.Due(appId: S.appId, id: kept.id)])
        let early = try under.store.read { (rows) throws(StoreError) in
            try PendingTimers.due(atMs: S.t0, limit: 100, from: rows)
        }
        #expect(early.isEmpty)
    }
}
