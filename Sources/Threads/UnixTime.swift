import Foundation

/// UNIX milliseconds, the unit storage, Apple's payloads and the reducer use, and their ISO 8601
/// text for people: one definition for the service, its commands and its workers.
public enum UnixTime {
    /// `date` in whole milliseconds, rounded down.
    public static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Now, in milliseconds.
    public static var nowMs: Int64 { milliseconds(Date()) }

    /// Milliseconds from `start` to `end`, 0 when `end` is earlier, saturated at `Int64.max`:
    /// `start` may come from a stored row, which must never trap a subtraction.
    public static func elapsedMs(from start: Int64, to end: Int64) -> Int64 {
        guard end > start else { return 0 }
        let (difference, overflow) = end.subtractingReportingOverflow(start)
        return overflow ? .max : difference
    }

    /// `elapsedMs(from:to:)` in seconds.
    public static func elapsedSeconds(from start: Int64, to end: Int64) -> Double {
        Double(elapsedMs(from: start, to: end)) / 1000
    }

    /// `2026-01-01T00:00:00Z`.
    public static func iso8601(_ milliseconds: Int64) -> String {
        ISO8601UTC.string(fromMilliseconds: milliseconds)
    }
}
