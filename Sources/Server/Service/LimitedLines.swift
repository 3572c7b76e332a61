import Foundation
import Threads

/// Warning lines of one kind that strangers can cause, `perSecond` at most: the next line
/// written after some were left out says how many (`left_out`), or, when none comes in the
/// second after, a line of its own that carries only the count (`LineAllowance`). A stranger can
/// send a refused request, or open and drop a connection, a millisecond.
package final class LimitedLines: Sendable {
    private let log: Log?
    private let event: String
    private let lines: AllowedLines

    /// - Parameter kind: what the lines are, in the plural, for the count's own line.
    package init(log: Log?, event: String, kind: String, perSecond: Int, clock: @escaping @Sendable () -> Date = Date.init) {
        self.log = log
        self.event = event
        lines = AllowedLines(perSecond: perSecond, clock: clock) { leftOut in
            log?.warning(
                event, "more \(kind) than \(perSecond) a second: left out of the log", [("left_out", .integer(Int64(leftOut)))])
        }
    }

    /// The `notification.refused` lines, whoever refused (ingest, or the HTTP server before the
    /// request reached it): ten a second.
    package static func refusals(log: Log?, clock: @escaping @Sendable () -> Date = Date.init) -> LimitedLines {
        LimitedLines(log: log, event: "notification.refused", kind: "refusals", perSecond: 10, clock: clock)
    }

    /// The `http.error` lines: what the HTTP server says of connections it dropped (a request
    /// line it cannot read, a peer gone mid-request), ten a second.
    package static func httpErrors(log: Log?, clock: @escaping @Sendable () -> Date = Date.init) -> LimitedLines {
        LimitedLines(log: log, event: "http.error", kind: "HTTP errors", perSecond: 10, clock: clock)
    }

    /// Writes one line, unless this second has had its share.
    package func write(_ message: String, _ fields: [(String, LogValue)] = []) {
        guard let log, log.enabled(.warning) else { return }
        guard let leftOut = lines.admit() else { return }
        log.warning(event, message, leftOut > 0 ? fields + [("left_out", .integer(Int64(leftOut)))] : fields)
    }

    /// Writes the count of lines left out and not said yet, once no more come (what writes them
    /// stopped).
    package func flush() { lines.flush() }
}
