import Synchronization

/// A Prometheus histogram: cumulative bucket counts, a sum and a count, per label set.
package final class Histogram: Sendable {
    /// Upper bounds of the buckets, ascending; `+Inf` is implied.
    package let bounds: [Double]

    private struct Series {
        package var buckets: [Int]
        package var sum: Double = 0
        package var count = 0

        package mutating func record(_ value: Double, at index: Int) {
            buckets[index] += 1
            sum += value
            count += 1
        }
    }

    private let series = Mutex<[String: Series]>([:])

    /// `labels` are series shown (empty) from the start; `[""]` for a histogram without labels.
    package init(bounds: [Double], labels: [String] = []) {
        precondition(bounds == bounds.sorted(), "histogram bounds must ascend")
        self.bounds = bounds
        let empty = Series(buckets: Array(repeating: 0, count: bounds.count + 1))
        series.withLock { all in for label in labels { all[label] = empty } }
    }

    /// Records one observation under `labels` (already formatted, as `route="/x",method="GET"`).
    package func observe(_ value: Double, labels: String = "") {
        let index = bounds.firstIndex { value <= $0 } ?? bounds.count
        let bucketCount = bounds.count + 1
        // Changed in place: a copy taken out of the dictionary would copy its buckets on the first write.
        series.withLock { all in
            all[labels, default: Series(buckets: Array(repeating: 0, count: bucketCount))].record(value, at: index)
        }
    }

    /// Text-format lines for metric `name`.
    package func render(name: String) -> [String] {
        let snapshot = series.withLock { $0 }
        var lines: [String] = []
        for labels in snapshot.keys.sorted() {
            let entry = snapshot[labels]!
            let prefix = labels.isEmpty ? "" : labels + ","
            var cumulative = 0
            for (index, bound) in bounds.enumerated() {
                cumulative += entry.buckets[index]
                lines.append("\(name)_bucket{\(prefix)le=\"\(Self.format(bound))\"} \(cumulative)")
            }
            cumulative += entry.buckets[bounds.count]
            lines.append("\(name)_bucket{\(prefix)le=\"+Inf\"} \(cumulative)")
            let suffix = labels.isEmpty ? "" : "{\(labels)}"
            lines.append("\(name)_sum\(suffix) \(Self.format(entry.sum))")
            lines.append("\(name)_count\(suffix) \(entry.count)")
        }
        return lines
    }

    package static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
