import Synchronization

/// A monotonically increasing count, safe from any thread.
package final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    package func increment(by amount: Int = 1) { value.add(amount, ordering: .relaxed) }
    package var count: Int { value.load(ordering: .relaxed) }
}

/// Counts split by one label value (for example a verification status).
package final class LabeledCounter: Sendable {
    private let values: Mutex<[String: Int]>

    /// `labels` are shown at 0 from the start: the first increment after a start is then a
    /// change `rate()` and `increase()` see, not a series that appears at 1.
    package init(labels: [String] = []) {
        values = Mutex(Dictionary(labels.map { ($0, 0) }, uniquingKeysWith: { first, _ in first }))
    }

    package func increment(label: String, by amount: Int = 1) { values.withLock { $0[label, default: 0] += amount } }
    package var counts: [String: Int] { values.withLock { $0 } }
}

/// A value that goes up and down (open connections).
package final class Gauge: Sendable {
    private let value = Atomic<Int>(0)

    package func add(_ amount: Int) { value.add(amount, ordering: .relaxed) }
    package var current: Int { value.load(ordering: .relaxed) }
}
