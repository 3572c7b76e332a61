import AppStore
import Foundation
import JSON
import Subscriptions

/// Loads the slice of a `Ledger` an input touches from the state tables, and writes it back.
///
/// Purchases, customers and unattached facts are JSON documents (sorted keys, so replay gives
/// byte-identical rows), keyed the way the reducer names them (`Ledger.Input.purchaseKey`,
/// `namedCustomerIds`, the purchase's owner).
public enum LedgerRows {
    /// `s:<originalTransactionId>` or `o:<transactionId>`.
    public static func key(_ purchase: PurchaseKey) -> String {
        switch purchase {
        case .subscription(let id): "s:\(id)"
        case .oneTime(let id): "o:\(id)"
        }
    }

    // MARK: - Loading

    /// The rows `input` reads: its purchase, the replaced subscription of a migration, their
    /// owners, and the customers it names; with what was learned of each purchase's stored facts
    /// (`PurchaseFactRows`), keyed like `purchases.purchase_key`, for `save`.
    ///
    /// - Parameters:
    ///   - restoringHeldEvents: whether to read back the held events each purchase keeps apart
    ///     (`HeldEventRows`) when the input may claim it (`Ledger.mayClaimAPurchase(by:)`, asked of
    ///     the customers it names): a claim releases them all.
    ///   - cache: what the store keeps decoded: purchases whose rows are unchanged, and facts for a
    ///     refold (`PurchaseFactRows.load`).
    ///   - firstRound: the answers to `firstRound(for:app:together:)`'s statements, read
    ///     ahead (`PreparedLedgerHandOff`); nil to read them now.
    public static func slice(
        for input: Ledger.Input, app: LedgerApp, restoringHeldEvents: Bool = false, cache: LedgerCache? = nil,
        firstRound readAhead: [[[SQLValue]]]? = nil, from rows: some RowReader
    ) throws -> (ledger: Ledger, facts: [String: PurchaseFactRows.Loaded]) {
        var ledger = Ledger(configuration: app.configuration)
        var facts: [String: PurchaseFactRows.Loaded] = [:]
        var customerIds: Set<String> = []
        let round = firstRound(for: input, app: app, together: rows.sendsQueriesTogether)
        let named = round.named
        let timerId = round.timer
        var answers = try readAhead ?? rows.queries(round.statements)
        let keptTimer = timerId != nil ? answers.removeLast().first?.first?.integerValue : nil
        for (id, answer) in zip(named, answers) {
            guard let customer = try CustomerRows.customer(in: answer) else { continue }
            if customer.appUserId != id { ledger.aliasOwners[id] = customer.appUserId }
            ledger.customers[customer.appUserId] = customer
        }
        // The named customers are all the rule reads: asked now, before the purchase is loaded.
        let restoringHeldEvents = restoringHeldEvents && ledger.mayClaimAPurchase(by: input)
        // The answer for the input's own purchase: its row, or none (a new purchase).
        var ownAnswer = input.purchaseKey != nil ? answers.removeLast() : nil
        var keys: [PurchaseKey] = []
        if let key = input.purchaseKey { keys.append(key) }
        if let replaced = input.replacedOriginalTransactionId { keys.append(.subscription(originalTransactionId: replaced)) }
        for id in input.movesEveryPurchaseOfCustomers {
            keys += try CustomerRows.ownedPurchases(of: ledger.customerId(id), appId: app.id, from: rows)
        }
        /// Loads a stored purchase into the ledger; its owner, if any.
        func load(_ key: PurchaseKey) throws -> String? {
            let found: [SQLValue]?
            if key == input.purchaseKey, let answer = ownAnswer {
                found = answer.first
                ownAnswer = nil
            } else {
                found = try rows.query(purchaseSQL, [.text(app.id), .text(Self.key(key))]).first
            }
            guard let row = found, let json = row[0].textValue else { return nil }
            let stored = (json: json, history: row[1].textValue, snapshots: row[2].textValue)
            // Made only for a purchase that is stored: a new one (most under load) needs no fact here.
            let fact = input.purchaseKey == key ? PurchaseFactRows.incoming(input)?.fact : nil
            switch key {
            case .subscription(let id):
                let state: SubscriptionState
                (state, facts[Self.key(key)]) = try purchase(
                    stored, key: key, incoming: fact, restoringHeldEvents: restoringHeldEvents, cache: cache, app: app,
                    from: rows)
                ledger.subscriptions[id] = state
                return state.journal.ownerAppUserId
            case .oneTime(let id):
                let oneTime: OneTimePurchase
                (oneTime, facts[Self.key(key)]) = try purchase(
                    stored, key: key, incoming: fact, restoringHeldEvents: restoringHeldEvents, cache: cache, app: app,
                    from: rows)
                ledger.oneTimePurchases[id] = oneTime
                return oneTime.journal.ownerAppUserId
            }
        }
        for key in Set(keys) {
            guard let owner = try load(key) else { continue }
            customerIds.insert(owner)
            // The owner's other purchases the input's rules read: all an anonymous owner has,
            // merged into the customer the input links to; an identified owner's subscriptions,
            // whose access may keep the purchase with them (restore behaviour).
            guard key == input.purchaseKey else { continue }
            let merged = input.linksToNamedCustomer && Ledger.isAnonymous(owner)
            guard merged || ledger.needsSubscriptions(of: owner, toLink: input) else { continue }
            for other in try CustomerRows.ownedPurchases(of: owner, appId: app.id, from: rows) where !keys.contains(other) {
                if merged || other.isSubscription { _ = try load(other) }
            }
        }
        for id in customerIds where ledger.customers[id] == nil {
            if let customer = try customer(id, app: app, from: rows) { ledger.customers[id] = customer }
        }
        if let timerId, ledger.subscriptions[timerId.original] == nil {
            facts[Self.key(.subscription(originalTransactionId: timerId.original)), default: .init()].keptTimerFireAt = .some(
                keptTimer)
        }
        return (ledger, facts)
    }

    /// The reads a slice starts with, sent in one round trip where the engine can: each
    /// customer `input` names (by its id or an alias), then its own purchase, then (`together`
    /// only) the timer a subscription's first row takes over, which is worth a statement only
    /// where it costs no round trip of its own.
    public static func firstRound(for input: Ledger.Input, app: LedgerApp, together: Bool) -> FirstRound {
        let named = Array(input.namedCustomerIds)
        var statements = named.map { CustomerRows.named($0, appId: app.id) }
        if let key = input.purchaseKey { statements.append((purchaseSQL, [.text(app.id), .text(Self.key(key))])) }
        let timer: (original: String, id: String)? =
            if together, case .subscription(let original)? = input.purchaseKey {
                (original, PendingTimers.keptTimerId(forSubscription: original))
            } else { nil }
        if let timer { statements.append(PendingTimers.keptTimerQuery(id: timer.id, appId: app.id)) }
        return FirstRound(statements: statements, named: named, timer: timer)
    }

    /// See `firstRound(for:app:together:)`.
    public struct FirstRound {
        public var statements: [(sql: String, arguments: [SQLValue])]
        /// The customers named, in the order of their statements.
        public var named: [String]
        public var timer: (original: String, id: String)?
    }

    private static let purchaseSQL =
        "SELECT json, history, history_snapshots FROM purchases WHERE app_id = ? AND purchase_key = ?"

    /// A stored purchase with its history, the facts the reducer needs to receive `incoming`
    /// (`PurchaseFactRows.load`), and when asked the held events it keeps apart.
    private static func purchase<Purchase: CacheablePurchase & KeepsSnapshots & Decodable & Equatable>(
        _ stored: (json: String, history: String?, snapshots: String?), key: PurchaseKey, incoming: PurchaseFact?,
        restoringHeldEvents: Bool, cache: LedgerCache?, app: LedgerApp, from rows: some RowReader
    ) throws -> (Purchase, PurchaseFactRows.Loaded) {
        let purchase: Purchase
        let decoded = { () throws -> Purchase in
            try withHistory(decode(Purchase.self, stored.json), stored.history, snapshots: stored.snapshots)
        }
        if let kept = cache?.purchases.purchase(
            Purchase.self, appId: app.id, key: Self.key(key), json: stored.json,
            history: HistorySnapshots.cacheKey(history: stored.history, snapshots: stored.snapshots))
        {
            assert((try? decoded()) == kept, "\(Self.key(key)): the kept purchase is not what its row decodes to")
            purchase = kept
        } else {
            purchase = try decoded()
        }
        var journal = purchase.journal
        var loaded = try PurchaseFactRows.load(
            &journal, key: Self.key(key), incoming: incoming, appId: app.id, cache: cache?.facts, from: rows)
        if restoringHeldEvents {
            loaded.restoredHeldEvents = try HeldEventRows.restore(&journal, key: Self.key(key), appId: app.id, from: rows)
        }
        return (purchase.replacingJournal(journal), loaded)
    }

    /// A purchase joined with its stored history, given back the snapshots it left out
    /// (`HistorySnapshots`); rows written before migration 3 carry their history inside.
    public static func withHistory<Purchase: HasPurchaseJournal & KeepsSnapshots>(
        _ purchase: Purchase, _ history: String?, snapshots: String?
    ) throws -> Purchase {
        guard let history else {
            guard snapshots == nil else { throw HistorySnapshotsError("history_snapshots without a history") }
            return purchase
        }
        let journal = try HistorySnapshots.takingBack(
            into: decode(PurchaseJournal.self, history), from: snapshots, keptBy: purchase)
        return purchase.replacingJournal(journal)
    }

    // MARK: - Saving

    /// Writes back every entry of `ledger` and executes `effects`: events into `events`
    /// (insert-or-ignore by their stable id), timers replacing the pending one (`PendingTimers`).
    ///
    /// - Parameters:
    ///   - webhooks: where new events are delivered: each gets a pending delivery per webhook
    ///     that takes it (none for replay).
    ///   - removedCustomers: customers the input merged into another or deleted: their rows go,
    ///     and the pending deliveries of one merged move to the customer it joined.
    ///   - cache: what the store keeps decoded, which keeps each purchase and fact written.
    public static func save(
        _ ledger: Ledger, facts: [String: PurchaseFactRows.Loaded], effects: [Ledger.Effect], appId: String,
        at nowMs: Int64, webhooks: [WebhookRoute], removedCustomers: [String] = [],
        storedCustomers: [String: CustomerState] = [:], cache: LedgerCache? = nil, in transaction: WriteTransaction
    ) throws {
        // A subscription's new timer goes into the upsert of its row (`PendingTimers`).
        var timers: [String: ExpirationTimer] = [:]
        for case .schedule(let timer) in effects { timers[timer.originalTransactionId] = timer }
        for (id, state) in ledger.subscriptions {
            let key = PurchaseKey.subscription(originalTransactionId: id)
            try upsertPurchase(
                key, state, view: state.view, facts: facts[Self.key(key)] ?? .init(), timer: timers.removeValue(forKey: id),
                appId: appId, cache: cache, transaction)
        }
        for (id, purchase) in ledger.oneTimePurchases {
            let key = PurchaseKey.oneTime(transactionId: id)
            try upsertPurchase(
                key, purchase, view: purchase.view, facts: facts[Self.key(key)] ?? .init(), timer: nil, appId: appId,
                cache: cache, transaction)
        }
        try WriteProfile.measure(.customers) {
            for id in removedCustomers {
                try CustomerRows.remove(id, appId: appId, in: transaction)
                // Merged into another: its deliveries still waiting queue behind that customer's.
                if let target = ledger.customers.values.first(where: { $0.aliases.contains(id) }) {
                    try Outbox.movePending(of: id, to: target.appUserId, appId: appId, in: transaction)
                }
            }
            for (id, customer) in ledger.customers {
                // A customer as it was read is stored as it is (its row, its aliases).
                let stored = storedCustomers[id]
                guard customer != stored else { continue }
                try transaction.write(
                    "INSERT INTO customers (app_id, app_user_id, json) VALUES (?, ?, ?) ON CONFLICT (app_id, app_user_id) DO UPDATE SET json = excluded.json",
                    [.text(appId), .text(id), .text(try encode(customer))])
                try CustomerRows.saveAliases(of: customer, storedAs: stored, appId: appId, in: transaction)
            }
        }
        for (id, fact) in ledger.unattachedFacts {
            try transaction.write(
                "INSERT INTO unattached_facts (app_id, fact_id, json) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [.text(appId), .text(id), .text(try encode(fact))])
        }
        for effect in effects {
            switch effect {
            case .emit(let event):
                try WriteProfile.measure(.events) {
                    try Outbox.insert(event, appId: appId, at: nowMs, webhooks: webhooks, in: transaction)
                }
            case .schedule(let timer):
                // Carried by its purchase's upsert above, unless that subscription was not saved.
                if let latest = timers.removeValue(forKey: timer.originalTransactionId) {
                    try WriteProfile.measure(.other) { try PendingTimers.schedule(latest, appId: appId, in: transaction) }
                }
            case .linkRefused:
                break
            }
        }
    }

    /// The current state goes to `json`, the history to `history`, and what a read of the owner
    /// shows to `purchase_views` (a purchase nobody owns, or one without a transaction yet, has none).
    ///
    /// `view` is only worked out for a purchase that has an owner (the bench's and many real
    /// purchases arrive before anyone claims them).
    private static func upsertPurchase(
        _ key: PurchaseKey, _ purchase: some CacheablePurchase & KeepsSnapshots & Encodable,
        view makeView: @autoclosure () -> PurchaseView?,
        facts: PurchaseFactRows.Loaded, timer: ExpirationTimer?, appId: String, cache: LedgerCache?,
        _ transaction: WriteTransaction
    ) throws {
        try WriteProfile.measure(.purchases) {
            try savePurchaseRow(key, purchase, facts: facts, timer: timer, appId: appId, cache: cache, transaction)
        }
        let owner = purchase.journal.ownerAppUserId
        try WriteProfile.measure(.views) {
            try saveView(
                key, owner == nil ? nil : makeView(), owner: owner, isStored: facts.isStored, appId: appId, transaction)
        }
    }

    /// The purchase's own row (state, history, facts, held events, timer column), and the
    /// decoded purchase kept for a later slice.
    private static func savePurchaseRow(
        _ key: PurchaseKey, _ purchase: some CacheablePurchase & KeepsSnapshots & Encodable,
        facts: PurchaseFactRows.Loaded, timer: ExpirationTimer?, appId: String, cache: LedgerCache?,
        _ transaction: WriteTransaction
    ) throws {
        let owner = purchase.journal.ownerAppUserId
        let kept = try HeldEventRows.save(
            PurchaseFactRows.save(
                purchase.journal, key: Self.key(key), loaded: facts, appId: appId, cache: cache?.facts, in: transaction),
            key: Self.key(key), restored: facts.restoredHeldEvents, appId: appId, in: transaction)
        // A subscription's first row takes over a timer kept for it in `timers` (`PendingTimers`).
        var timerFireAt = timer?.fireAtMs
        if !facts.isStored, case .subscription(let id) = key,
            let adopted = try PendingTimers.adoptKept(
                forSubscription: id, appId: appId, known: facts.keptTimerFireAt, in: transaction)
        {
            timerFireAt = timerFireAt ?? adopted
        }
        // Without a new timer the pending one stays.
        let (stored, snapshots) = HistorySnapshots.leavingOut(of: kept, keptBy: purchase)
        let (json, history) = (try encode(purchase.withoutHistory), try encode(stored))
        try transaction.write(
            "INSERT INTO purchases (app_id, purchase_key, owner, json, history, history_snapshots, timer_fire_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (app_id, purchase_key) DO UPDATE SET owner = excluded.owner, json = excluded.json, history = excluded.history, history_snapshots = excluded.history_snapshots, timer_fire_at = coalesce(excluded.timer_fire_at, purchases.timer_fire_at)",
            [
                .text(appId), .text(Self.key(key)), owner.map(SQLValue.text) ?? .null, .text(json), .text(history),
                snapshots.map(SQLValue.text) ?? .null, timerFireAt.map(SQLValue.integer) ?? .null,
            ])
        // What a later slice decodes from this row: the purchase with the history as kept. Only
        // from its second write on: most purchases written once (a first notification) are not
        // touched again soon, and keeping each costs the writer more than decoding the few that are.
        if facts.isStored {
            cache?.purchases.remember(
                purchase.replacingJournal(kept), appId: appId, key: Self.key(key), json: json,
                history: HistorySnapshots.cacheKey(history: history, snapshots: snapshots))
        }
    }

    /// What a read of `owner` shows of the purchase (`purchase_views`); none without an owner or
    /// a view.
    private static func saveView(
        _ key: PurchaseKey, _ view: PurchaseView?, owner: String?, isStored: Bool, appId: String,
        _ transaction: WriteTransaction
    ) throws {
        // A transfer leaves the view under the previous owner: it goes first. A purchase stored
        // for the first time has no view anywhere yet.
        if isStored {
            try transaction.write(
                "DELETE FROM purchase_views WHERE app_id = ? AND purchase_key = ? AND owner IS DISTINCT FROM ?",
                [.text(appId), .text(Self.key(key)), view == nil ? .null : owner.map(SQLValue.text) ?? .null])
        }
        guard let owner, let view else { return }
        try transaction.write(
            "INSERT INTO purchase_views (app_id, owner, purchase_key, view) VALUES (?, ?, ?, ?) ON CONFLICT (app_id, owner, purchase_key) DO UPDATE SET view = excluded.view",
            [.text(appId), .text(owner), .text(Self.key(key)), .text(try encode(view))])
    }

    // MARK: - JSON

    /// Compact JSON with sorted keys (byte-identical across runs, so replay can be compared).
    public static func encode(_ value: some Encodable) throws -> String {
        try JSONValueEncoder().encode(value)
    }

    /// `encode` of a state, journal, event or timer, which write themselves (the same text).
    public static func encode(_ value: some SortedJSONWritable) throws -> String {
        try JSONValueEncoder().encode(value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONValueDecoder().decode(type, from: Data(json.utf8))
    }
}
