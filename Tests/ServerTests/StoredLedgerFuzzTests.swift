import AppStore
import Foundation
import Subscriptions
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Random sequences of every kind of input, applied through storage and to the pure reducer:
/// the events (in order, byte for byte) and every stored purchase (state, and history with its
/// fact rows and held event rows put back) must be the pure reducer's. Covers what keeps rows
/// apart (`PurchaseFactRows`, `HeldEventRows`, `EarlierPeriod`) against claims of every kind,
/// out-of-order and repeated facts, one-time purchases, migrations and the tracking switch.
@Suite struct StoredLedgerFuzzTests {
    static let subscriptions = ["5000000001", "5000000002", "5000000003"]
    static let month: Int64 = 2_592_000_000
    static let base: Int64 = 1_700_000_000_000

    /// SplitMix64, so every sequence replays from its seed.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
        mutating func below(_ count: Int) -> Int { Int(next() % UInt64(count)) }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
    }

    /// Period `period` of subscription `id` (the third one replaces the first, as an Advanced
    /// Commerce migration); the first period is a free trial.
    static func period(_ id: String, _ period: Int, signed: Int64, token: String?) -> JWSTransactionDecodedPayload {
        let purchase = base + Int64(period) * month
        return JWSTransactionDecodedPayload(
            transactionId: period == 0 ? id : "\(id)\(period)", originalTransactionId: id,
            previousOriginalTransactionId: id == subscriptions[2] ? subscriptions[0] : nil,
            productId: period % 2 == 0 ? "pro.monthly" : "pro.yearly", purchaseDate: purchase, originalPurchaseDate: base,
            expiresDate: purchase + month, type: .autoRenewable, appAccountToken: token, signedDate: signed,
            offerType: period == 0 ? .introductory : nil, offerDiscountType: period == 0 ? .freeTrial : nil,
            environment: .sandbox, price: 9990)
    }

    static func oneTime(_ index: Int, signed: Int64, token: String?) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            transactionId: "9000000\(index)", originalTransactionId: "9000000\(index)", productId: "coins",
            purchaseDate: base, originalPurchaseDate: base, type: .consumable, appAccountToken: token, signedDate: signed,
            environment: .sandbox, price: 990)
    }

    static func input(_ random: inout Random, _ number: Int, nowMs: Int64) -> Ledger.Input {
        let token: String? = random.pick([nil, nil, "alice", "bob", "carol"])
        let signed = base + Int64(random.below(8)) * month / 2 + Int64(random.below(1000))
        let user = random.pick(["alice", "bob", "carol"])
        switch random.below(10) {
        case 0...4:
            let id = random.pick(subscriptions)
            let (type, subtype): (NotificationTypeV2, Subtype?) = random.pick([
                (.subscribed, .initialBuy), (.didRenew, nil), (.didRenew, nil), (.didChangeRenewalStatus, .autoRenewDisabled),
                (.didFailToRenew, nil), (.refund, nil), (.expired, .voluntary), (.didChangeRenewalPref, .upgrade),
                (.unknown("FUTURE_TYPE"), nil),
            ])
            var transaction = period(id, random.below(5), signed: signed, token: token)
            // Now and then the transaction is a snapshot signed before the notification: a state
            // may then hold another snapshot of the newest fact's transaction.
            if random.below(4) == 0 { transaction.signedDate = signed - Int64(1 + random.below(1000)) }
            if type == .refund {
                transaction.revocationDate = signed
                transaction.revocationReason = .refundedForOtherReason
            }
            let renewal = JWSRenewalInfoDecodedPayload(
                originalTransactionId: id, productId: transaction.productId, autoRenewProductId: transaction.productId,
                autoRenewStatus: type == .didChangeRenewalStatus ? .off : .on, signedDate: signed, environment: .sandbox)
            return .notificationReceived(
                VerifiedNotificationFacts(
                    notificationUUID: "u-\(number)", notificationType: type, subtype: subtype, signedDateMs: signed,
                    environment: .sandbox, transaction: transaction, renewalInfo: renewal))
        case 5:
            let type: NotificationTypeV2 = random.pick([.oneTimeCharge, .refund])
            var transaction = oneTime(random.below(2), signed: signed, token: token)
            if type == .refund {
                transaction.revocationDate = signed
                transaction.revocationReason = .refundedForOtherReason
            }
            return .notificationReceived(
                VerifiedNotificationFacts(
                    notificationUUID: "o-\(number)", notificationType: type, signedDateMs: signed, environment: .sandbox,
                    transaction: transaction))
        case 6:
            if random.below(3) == 0 {
                return .transactionPosted(oneTime(random.below(2), signed: signed, token: nil), appUserId: user)
            }
            return .transactionPosted(
                period(random.pick(subscriptions), random.below(5), signed: signed, token: nil), appUserId: user)
        case 7:
            let key: PurchaseKey =
                random.below(3) == 0
                ? .oneTime(transactionId: "9000000\(random.below(2))")
                : .subscription(originalTransactionId: random.pick(subscriptions))
            return .linked(key, appUserId: user)
        default:
            // Half long after every period; half near the end of one, before, inside or past the
            // wait for a renewal notice (`SubscriptionState.renewalNoticeWaitMs`), fired then.
            let id = random.pick(subscriptions)
            guard random.below(2) == 0 else { return .timerFired(ExpirationTimer(originalTransactionId: id, fireAtMs: nowMs)) }
            let end = base + Int64(random.below(5) + 1) * month
            let offset: Int64 = random.pick([-1_800_000, 0, 600_000, 3_000_000, 3_600_000, 10_800_000])
            return .timerFired(ExpirationTimer(originalTransactionId: id, fireAtMs: end + offset))
        }
    }

    @Test(arguments: 0..<60)
    func storedLedgerIsThePureReducers(seed: Int) throws {
        let directory = TestDirectory("stored-ledger-fuzz")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        var app = try PurchaseFactRowsTests.app()
        app.webhook = nil
        var random = Random(state: UInt64(seed) &* 7919)
        var ledger = Ledger(configuration: app.ledger.configuration)
        // A store's caches, small enough that refolds also decode some facts and some purchases
        // are decoded from their rows (every hit is checked against its row in debug builds).
        let cache = LedgerCache(facts: FactCache(capacity: 8), purchases: PurchaseCache(capacityBytes: 6_000))
        var pureEvents: [Event] = []
        var seen = Set<String>()
        // Tracking off, on, or switched on partway.
        let tracking = random.below(3)
        var inputs: [Ledger.Input] = []
        for number in 0..<60 {
            let day = Int64(1_800_000_000_000) + Int64(number) * 86_400_000 * 20
            app.trackNewPurchasesFromServerNotifications = tracking == 0 ? false : tracking == 1 ? true : number > 40
            ledger.configuration = app.ledger.configuration
            ledger.configuration.anonymousIds = store.anonymousIds
            var input = Self.input(&random, number, nowMs: day)
            if !inputs.isEmpty, random.below(8) == 0 { input = random.pick(inputs) }
            inputs.append(input)
            // A timer fires at its own time (near a period's end, or the input's).
            let at = if case .timerFired(let timer) = input { timer.fireAtMs } else { day }
            let (current, applied) = (app, input)
            try store.write { transaction in
                try LedgerInputs.apply(applied, app: current.ledger, atMs: at, cache: cache, in: transaction)
            }
            for case .emit(let event) in ledger.apply(input, at: Date(timeIntervalSince1970: Double(at) / 1000))
            where seen.insert(event.id).inserted {
                pureEvents.append(event)
            }
        }
        let stored = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT json FROM events ORDER BY position").map { $0[0].textValue ?? "" }
        }
        #expect(stored == (try pureEvents.map { try LedgerRows.encode($0) }), "seed \(seed)")
        // Most inputs found their purchase kept (each hit checked against its row, in debug).
        #expect(cache.purchases.hits > 10, "seed \(seed)")
        for (id, state) in ledger.subscriptions {
            try Self.expectStored("s:\(id)", json: LedgerRows.encode(state.withoutHistory), journal: state.journal, store)
        }
        for (id, purchase) in ledger.oneTimePurchases {
            try Self.expectStored("o:\(id)", json: LedgerRows.encode(purchase.withoutHistory), journal: purchase.journal, store)
        }
    }

    static func expectStored(_ key: String, json: String, journal: PurchaseJournal, _ store: Store) throws {
        let rows = try store.read { (rows) throws(StoreError) in
            (
                try rows.query("SELECT json, history, history_snapshots FROM purchases WHERE purchase_key = ?", [.text(key)]),
                try rows.query("SELECT json FROM purchase_facts WHERE purchase_key = ?", [.text(key)]),
                try rows.query("SELECT json FROM held_events WHERE purchase_key = ? ORDER BY seq", [.text(key)])
            )
        }
        let purchase = try #require(rows.0.first, "\(key) is not stored")
        let history = try LedgerRows.storedJournal(
            key: key, json: try #require(purchase[0].textValue), history: try #require(purchase[1].textValue),
            snapshots: purchase[2].textValue)
        let older = try rows.1.map { try LedgerRows.decode(PurchaseFact.self, try #require($0[0].textValue)) }
        let held = try rows.2.map { try LedgerRows.decode(Event.self, try #require($0[0].textValue)) }
        #expect(held.count == history.storedHeldEventCount ?? 0, "\(key): held rows")
        #expect(history.replacingFacts(older + history.facts).restoringHeldEvents(held) == journal, "\(key): journal")
        #expect(purchase[0].textValue == json, "\(key): state")
    }
}
