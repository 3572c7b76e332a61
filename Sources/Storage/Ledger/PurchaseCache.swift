import Foundation
import Subscriptions
import Synchronization

/// Decoded purchases (`purchases` rows) of one store, each with the exact text of its row, so
/// that applying an input to a purchase whose row has not changed since it was written reads
/// that text but does not decode it again.
///
/// A purchase's state is one JSON document, a subscription's carrying each of its transactions,
/// that every input about it reads and writes whole. Inputs about the same purchase often come
/// together (a backfill, the purchase and the app's post of its transaction, Apple's retries):
/// each finds here the purchase the one before it wrote, instead of decoding that text again.
///
/// An entry answers only when the row's `json` and `history` are byte for byte the text it was
/// made from, so it is never stale: a write that rolled back, another writer, or a replay left
/// other text, and the row is decoded. What is kept for a text is the value whose encoding that
/// text is; debug builds decode every hit too and stop if the two differ (the encoding must read
/// back exactly). Oldest writes go first once the kept text passes `capacityBytes`. `LedgerRows`
/// keeps a purchase from its second write on, not after its first.
public final class PurchaseCache: Sendable {
    /// A kept purchase: one case for each kind of purchase a `purchases` row holds.
    public enum Kept: Sendable {
        case subscription(SubscriptionState)
        case oneTime(OneTimePurchase)
    }

    private struct Entry {
        public let json: String
        public let history: String?
        public let purchase: Kept
        /// Which hand-over of `order` this entry is (older ones for the same key are stale).
        public let generation: Int
        public var bytes: Int { json.utf8.count + (history?.utf8.count ?? 0) }
    }

    private struct Entries {
        public var byKey: [String: Entry] = [:]
        /// Keys in the order they were written, with the generation written; a key written again
        /// leaves its older place behind, skipped when it comes up.
        public var order: [(key: String, generation: Int)] = []
        public var head = 0
        public var bytes = 0
        public var generation = 0
        public var hits = 0
    }

    private let entries = Mutex(Entries())
    public let capacityBytes: Int

    /// About 16 MB of JSON by default: a thousand purchases with a few years of renewals each.
    public init(capacityBytes: Int = 16 << 20) {
        precondition(capacityBytes > 0, "a purchase cache needs room for one purchase")
        self.capacityBytes = capacityBytes
    }

    private static func key(appId: String, purchase: String) -> String { "\(appId)\u{1F}\(purchase)" }

    /// The purchase whose row holds exactly `json` and `history`, if it is kept.
    public func purchase<Purchase: CacheablePurchase>(
        _ type: Purchase.Type, appId: String, key purchase: String, json: String, history: String?
    ) -> Purchase? {
        entries.withLock { entries in
            guard let entry = entries.byKey[Self.key(appId: appId, purchase: purchase)],
                Self.sameBytes(entry.json, json), Self.sameBytes(entry.history, history)
            else { return nil }
            guard let purchase = Purchase(cached: entry.purchase) else { return nil }
            entries.hits += 1
            return purchase
        }
    }

    /// Keeps `purchase` as the value of a row holding `json` and `history`.
    public func remember(
        _ purchase: some CacheablePurchase, appId: String, key: String, json: String, history: String?
    ) {
        let key = Self.key(appId: appId, purchase: key)
        let kept = purchase.cached
        entries.withLock { entries in
            entries.generation += 1
            let entry = Entry(json: json, history: history, purchase: kept, generation: entries.generation)
            if let replaced = entries.byKey.updateValue(entry, forKey: key) { entries.bytes -= replaced.bytes }
            entries.bytes += entry.bytes
            entries.order.append((key, entry.generation))
            while entries.bytes > capacityBytes, entries.head < entries.order.count {
                let oldest = entries.order[entries.head]
                entries.head += 1
                guard let kept = entries.byKey[oldest.key], kept.generation == oldest.generation else { continue }
                entries.byKey[oldest.key] = nil
                entries.bytes -= kept.bytes
            }
            // Drop the places already passed once they are most of the array.
            if entries.head > 64, entries.head * 2 > entries.order.count {
                entries.order.removeFirst(entries.head)
                entries.head = 0
            }
        }
    }

    /// How many purchases are kept, and the bytes of their text.
    public var usage: (count: Int, bytes: Int) { entries.withLock { ($0.byKey.count, $0.bytes) } }

    /// How many times a kept purchase was given instead of decoding its row.
    public var hits: Int { entries.withLock { $0.hits } }

    /// Byte equality (`==` on strings compares them as Unicode, where different bytes can be equal).
    public static func sameBytes(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        guard a.utf8.count == b.utf8.count else { return false }
        let contiguous = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in
                left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
        return (contiguous ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }
}

/// A purchase `PurchaseCache` keeps, as its own case of `PurchaseCache.Kept`.
public protocol CacheablePurchase: HasPurchaseJournal, Sendable {
    /// The purchase as the cache keeps it.
    var cached: PurchaseCache.Kept { get }
    /// The purchase `cached` holds; nil when it holds another kind of purchase.
    init?(cached: PurchaseCache.Kept)
}

extension SubscriptionState: CacheablePurchase {
    public var cached: PurchaseCache.Kept { .subscription(self) }

    public init?(cached: PurchaseCache.Kept) {
        guard case .subscription(let state) = cached else { return nil }
        self = state
    }
}

extension OneTimePurchase: CacheablePurchase {
    public var cached: PurchaseCache.Kept { .oneTime(self) }

    public init?(cached: PurchaseCache.Kept) {
        guard case .oneTime(let purchase) = cached else { return nil }
        self = purchase
    }
}
