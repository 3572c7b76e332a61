import AppStore
import Subscriptions

/// A purchase's older facts as rows of `purchase_facts` (migration 8): each written once, read
/// only when the reducer needs them.
///
/// The reducer reads a purchase's older facts only in a few cases its journal names
/// (`PurchaseJournal.needsEveryFact(toReceive:)`): to refold, when a fact arrives that is not
/// newer than the newest it has, and to tell whether a refund was already notified. So
/// `purchases.history` keeps only the newest fact, and every other fact is a row here, written
/// when it stops being the newest. A fact newer than the kept one, the common case, is applied
/// without reading any row; in those cases they are all loaded first. Rows written before
/// migration 8 carry all their facts in `history`, and move them here the next time they are
/// written.
public enum PurchaseFactRows {
    /// What loading a purchase learned: that it is stored, and the facts read from rows (not
    /// written again). A purchase the reducer created has the defaults.
    public struct Loaded: Sendable {
        public var isStored = false
        public var ids: Set<String> = []
        /// How many held events were read from rows into the journal (`HeldEventRows.restore`).
        public var restoredHeldEvents = 0
        /// For a subscription not yet stored: the moment of a timer kept for it in `timers`, when
        /// the slice read it already (`.some(nil)`: none); nil when it was not read.
        public var keptTimerFireAt: Int64??
    }

    /// The fact `input` brings, and the purchase it is about.
    public static func incoming(_ input: Ledger.Input) -> (key: PurchaseKey, fact: PurchaseFact)? {
        guard let key = input.purchaseKey else { return nil }
        switch input {
        case .notificationReceived(let facts): return (key, PurchaseFact(facts))
        case .transactionPosted(let transaction, _, _): return (key, PurchaseFact(posted: transaction))
        case .appleAnswered(let transaction, let renewalInfo, _):
            return (key, PurchaseFact(appleAPI: transaction, renewalInfo: renewalInfo))
        case .appleHistory(let transaction, _): return (key, PurchaseFact(appleHistory: transaction))
        case .linked, .timerFired, .customerAction: return nil
        }
    }

    /// Gives `journal` (as stored: its newest fact only) every fact when the reducer will need
    /// them to receive `incoming` (`PurchaseJournal.needsEveryFact(toReceive:)`).
    ///
    /// With `cache`, the facts it holds decoded are not read again: only their ids are (from the
    /// primary key's index), and the JSON of the others.
    public static func load(
        _ journal: inout PurchaseJournal, key: String, incoming: PurchaseFact?, appId: String, cache: FactCache? = nil,
        from rows: some RowReader
    ) throws -> Loaded {
        guard let incoming, journal.needsEveryFact(toReceive: incoming) else { return Loaded(isStored: true) }
        let older =
            try cache.map { try cached(key: key, appId: appId, in: $0, from: rows) }
            ?? decoded(key: key, appId: appId, from: rows)
        journal = journal.replacingFacts(older + journal.facts)
        return Loaded(isStored: true, ids: Set(older.map(\.id)))
    }

    /// Every fact row of the purchase, decoded.
    private static func decoded(key: String, appId: String, from rows: some RowReader) throws -> [PurchaseFact] {
        let found = try rows.query(
            "SELECT json FROM purchase_facts WHERE app_id = ? AND purchase_key = ?", [.text(appId), .text(key)])
        return try found.compactMap { try $0[0].textValue.map { try LedgerRows.decode(PurchaseFact.self, $0) } }
    }

    /// Every fact row of the purchase, from `cache` where it has them, decoding (and keeping) the others.
    private static func cached(key: String, appId: String, in cache: FactCache, from rows: some RowReader) throws
        -> [PurchaseFact]
    {
        let ids = try rows.query(
            "SELECT fact_id FROM purchase_facts WHERE app_id = ? AND purchase_key = ?", [.text(appId), .text(key)]
        ).compactMap { $0[0].textValue }
        var known = cache.facts(ids, appId: appId, purchase: key)
        if known.count < ids.count {
            let found = try rows.query(
                "SELECT fact_id, json FROM purchase_facts WHERE app_id = ? AND purchase_key = ?", [.text(appId), .text(key)])
            for row in found {
                guard let id = row[0].textValue, known[id] == nil, let json = row[1].textValue else { continue }
                let fact = try LedgerRows.decode(PurchaseFact.self, json)
                known[id] = fact
                cache.remember(fact, appId: appId, purchase: key)
            }
        }
        return ids.compactMap { known[$0] }
    }

    /// Writes every fact of `journal` but the newest as a row (those not read from rows), and
    /// returns the journal to keep in `purchases.history`: with its newest fact only.
    /// With `cache`, each fact written is kept there decoded.
    public static func save(
        _ journal: PurchaseJournal, key: String, loaded: Loaded, appId: String, cache: FactCache? = nil,
        in transaction: WriteTransaction
    ) throws -> PurchaseJournal {
        for fact in journal.facts.dropLast() where !loaded.ids.contains(fact.id) {
            try transaction.write(
                "INSERT INTO purchase_facts (app_id, purchase_key, fact_id, json) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [.text(appId), .text(key), .text(fact.id), .text(try LedgerRows.encode(fact))])
            cache?.remember(fact, appId: appId, purchase: key)
        }
        return journal.replacingFacts(Array(journal.facts.suffix(1)))
    }
}
