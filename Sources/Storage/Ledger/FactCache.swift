import Subscriptions
import Synchronization

/// Decoded older facts (`purchase_facts` rows) of one store, by purchase and fact id, so that a
/// refold reads back only the JSON of facts it has not seen decoded.
///
/// A fact arriving out of order refolds its purchase from every fact it has, and decoding them
/// costs more than the fold: a subscription a few years old has dozens, each a JSON document of its
/// own, and Apple's retries deliver old notifications after newer ones. A fact's row is written
/// once and never changes (its id fixes what it says: a notification's UUID, or a posted
/// transaction and its signed date), and replay writes the same rows again, so an entry is never
/// stale; one whose row a rolled-back transaction never kept is harmless, since only ids read from
/// the table are looked up. Oldest entries go first once `capacity` is reached. One per store: ids
/// are only unique within one database.
public final class FactCache: Sendable {
    private struct Entries {
        public var facts: [String: PurchaseFact] = [:]
        /// Keys in the order they came in, as a ring: `next` is the oldest once it is full.
        public var order: [String] = []
        public var next = 0
    }

    private let entries = Mutex(Entries())
    public let capacity: Int

    /// About 1.2 kB a fact: 8,192 of them are about 10 MB.
    public init(capacity: Int = 8192) {
        precondition(capacity > 0, "a fact cache needs room for one fact")
        self.capacity = capacity
    }

    private static func key(appId: String, purchase: String, fact: String) -> String {
        "\(appId)\u{1F}\(purchase)\u{1F}\(fact)"
    }

    /// The decoded facts among `ids` of `purchase`, by id.
    public func facts(_ ids: [String], appId: String, purchase: String) -> [String: PurchaseFact] {
        entries.withLock { entries in
            var found: [String: PurchaseFact] = [:]
            for id in ids {
                if let fact = entries.facts[Self.key(appId: appId, purchase: purchase, fact: id)] { found[id] = fact }
            }
            return found
        }
    }

    /// Keeps `fact`, a fact of `purchase` as its row holds it.
    public func remember(_ fact: PurchaseFact, appId: String, purchase: String) {
        let key = Self.key(appId: appId, purchase: purchase, fact: fact.id)
        entries.withLock { entries in
            guard entries.facts.updateValue(fact, forKey: key) == nil else { return }
            if entries.order.count < capacity {
                entries.order.append(key)
            } else {
                entries.facts[entries.order[entries.next]] = nil
                entries.order[entries.next] = key
                entries.next = (entries.next + 1) % capacity
            }
        }
    }

    /// How many facts are kept.
    public var count: Int { entries.withLock { $0.facts.count } }
}
