import Synchronization

/// Keys remembered for `ttl` from when they were put in, at most `capacity` of them (past it,
/// the expired ones go, and all of them if none had). Thread-safe.
final class RecentKeys: Sendable {
    private let ttl: Duration
    private let capacity: Int
    private let keys = Mutex<[String: ContinuousClock.Instant]>([:])

    init(ttl: Duration, capacity: Int) {
        self.ttl = ttl
        self.capacity = capacity
    }

    /// Whether `key` was put in within `ttl`.
    func contains(_ key: String) -> Bool {
        keys.withLock { keys in
            guard let since = keys[key] else { return false }
            if since.duration(to: .now) < ttl { return true }
            keys[key] = nil
            return false
        }
    }

    /// Puts `key` in (again), from now.
    func insert(_ key: String) {
        keys.withLock { keys in
            makeRoom(&keys)
            keys[key] = .now
        }
    }

    private func makeRoom(_ keys: inout [String: ContinuousClock.Instant]) {
        guard keys.count >= capacity else { return }
        let now = ContinuousClock.now
        keys = keys.filter { $0.value.duration(to: now) < ttl }
        if keys.count >= capacity { keys.removeAll() }
    }
}
