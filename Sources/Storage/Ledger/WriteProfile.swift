import Foundation
import Synchronization

/// Where the writer's time goes per input applied to state, by phase: off unless the
/// environment sets `REVENUEDOT_WRITE_PROFILE`, for `make bench` and for whoever profiles a
/// slow writer. When off, a phase costs one branch.
public enum WriteProfile {
    public enum Phase: String, CaseIterable, Sendable {
        /// Loading the slice: the purchase, its owner, named customers, facts, held events.
        case slice
        /// The reducer.
        case reduce
        /// Purchases' rows: state, history, facts, held events, timer column.
        case purchases
        /// `purchase_views`: what a read of the owner shows.
        case views
        /// Customers and their aliases.
        case customers
        /// Events and their pending deliveries (the outbox).
        case events
        /// Timers kept apart and commerce requests completed.
        case other
        /// The applied-inputs log (what replay applies again).
        case log
        /// The notification's own row: its compacted payload and snapshots, new JWS headers.
        case notification
    }

    static let enabled = ProcessInfo.processInfo.environment["REVENUEDOT_WRITE_PROFILE"] != nil
    private static let totals = Mutex<[Phase: (nanoseconds: Int64, count: Int)]>([:])
    private static let inputs = Atomic<Int>(0)

    /// Runs `body`, adding its time to `phase` when profiling.
    @inline(__always)
    static func measure<T>(_ phase: Phase, _ body: () throws -> T) rethrows -> T {
        guard enabled else { return try body() }
        let start = ContinuousClock.now
        defer { add(phase, start.duration(to: .now)) }
        return try body()
    }

    /// Adds `elapsed` to `phase` (profiling is on).
    static func add(_ phase: Phase, _ elapsed: Duration) {
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        totals.withLock { totals in
            let total = totals[phase] ?? (0, 0)
            totals[phase] = (total.nanoseconds + nanoseconds, total.count + 1)
        }
    }

    /// Counts one input applied (the denominator of `report`).
    static func countInput() {
        guard enabled else { return }
        inputs.add(1, ordering: .relaxed)
    }

    /// One line: microseconds per input applied, by phase; nil when profiling is off or nothing
    /// was applied.
    public static func report() -> String? {
        let count = inputs.load(ordering: .relaxed)
        guard enabled, count > 0 else { return nil }
        let totals = totals.withLock { $0 }
        let parts = Phase.allCases.map { phase in
            String(format: "%@ %.1f", phase.rawValue, Double(totals[phase]?.nanoseconds ?? 0) / 1000 / Double(count))
        }
        let sum = Phase.allCases.reduce(Int64(0)) { $0 + (totals[$1]?.nanoseconds ?? 0) }
        return "write profile, µs per input over \(count) inputs: " + parts.joined(separator: ", ")
            + String(format: "; total %.1f", Double(sum) / 1000 / Double(count))
    }
}
