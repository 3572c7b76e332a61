import Synchronization

/// A monotonically increasing count, safe from any thread.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func increment(by amount: Int = 1) { value.add(amount, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// Counts split by one label value (for example a verification status).
final class LabeledCounter: Sendable {
    private let values = Mutex<[String: Int]>([:])

    func increment(label: String, by amount: Int = 1) { values.withLock { $0[label, default: 0] += amount } }
    var counts: [String: Int] { values.withLock { $0 } }
}

/// A value that goes up and down (open connections).
final class Gauge: Sendable {
    private let value = Atomic<Int>(0)

    func add(_ amount: Int) { value.add(amount, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
}
