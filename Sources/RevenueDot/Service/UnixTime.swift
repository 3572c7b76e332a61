import Foundation

/// UNIX milliseconds, the unit storage, Apple's payloads and the reducer use, and their ISO 8601
/// text for people: one definition for the service, its commands and its workers.
enum UnixTime {
    /// `date` in whole milliseconds, rounded down.
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Now, in milliseconds.
    static var nowMs: Int64 { milliseconds(Date()) }

    /// `2026-01-01T00:00:00Z`.
    static func iso8601(_ milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
    }
}
