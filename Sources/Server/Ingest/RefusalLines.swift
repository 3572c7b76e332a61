import Foundation
import Threads

/// The `notification.refused` lines: ten a second at most, whoever refused (ingest, or the
/// HTTP server before the request reached it); the next line written after some were left out
/// says how many (`left_out`), or, when none comes in the second after, a line of its own that
/// carries only the count (`LineAllowance`). A stranger can send a refused request a millisecond.
package final class RefusalLines: Sendable {
    private let log: Log?
    private let lines: AllowedLines

    package init(log: Log?, clock: @escaping @Sendable () -> Date = Date.init) {
        self.log = log
        lines = AllowedLines(perSecond: 10, clock: clock) { leftOut in
            log?.warning(
                "notification.refused", "more refusals than 10 a second: left out of the log",
                [("left_out", .integer(Int64(leftOut)))])
        }
    }

    /// Writes one refusal, unless this second has had its share.
    package func write(_ message: String, _ fields: [(String, LogValue)]) {
        guard let log, log.enabled(.warning) else { return }
        guard let leftOut = lines.admit() else { return }
        log.warning("notification.refused", message, leftOut > 0 ? fields + [("left_out", .integer(Int64(leftOut)))] : fields)
    }

    /// Writes the count of refusals left out and not said yet, once no more come (the HTTP
    /// server stopped).
    package func flush() { lines.flush() }
}
