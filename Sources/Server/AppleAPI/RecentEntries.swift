import Synchronization

/// Values by key, each kept for `ttl` from when it was put in, at most `capacity` of them (past
/// it, the expired ones go, and all of them if none had). Thread-safe.
final class RecentEntries<Value: Sendable>: Sendable {
    private let ttl: Duration
    private let capacity: Int
    private let entries = Mutex<[String: (at: ContinuousClock.Instant, value: Value)]>([:])

    init(ttl: Duration, capacity: Int) {
        self.ttl = ttl
        self.capacity = capacity
    }

    /// The value put in for `key` within `ttl`, if any.
    func value(for key: String) -> Value? {
        entries.withLock { entries in fresh(key, in: &entries) }
    }

    /// Puts `value` in for each of `keys`, from now.
    func set(_ value: Value, for keys: some Sequence<String>) {
        entries.withLock { entries in
            makeRoom(&entries)
            for key in keys { entries[key] = (.now, value) }
        }
    }

    /// The value put in for `key` within `ttl`; when there is none, puts `value` in, from now,
    /// and returns nil. One step: of two callers at once, one puts in and the other finds it.
    func valueOrSet(_ value: Value, for key: String) -> Value? {
        entries.withLock { entries in
            if let found = fresh(key, in: &entries) { return found }
            makeRoom(&entries)
            entries[key] = (.now, value)
            return nil
        }
    }

    func remove(_ key: String) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    private func fresh(_ key: String, in entries: inout [String: (at: ContinuousClock.Instant, value: Value)]) -> Value? {
        guard let entry = entries[key] else { return nil }
        if entry.at.duration(to: .now) < ttl { return entry.value }
        entries[key] = nil
        return nil
    }

    private func makeRoom(_ entries: inout [String: (at: ContinuousClock.Instant, value: Value)]) {
        guard entries.count >= capacity else { return }
        let now = ContinuousClock.now
        entries = entries.filter { $0.value.at.duration(to: now) < ttl }
        if entries.count >= capacity { entries.removeAll() }
    }
}
