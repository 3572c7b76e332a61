import Foundation
import Threads

/// The `notification.refused` lines: ten a second at most, whoever refused (ingest, or the
/// HTTP server before the request reached it); a line written after some were left out says
/// how many (`left_out`). A stranger can send a refused request a millisecond.
package final class RefusalLines: Sendable {
    private let log: Log?
    private let clock: @Sendable () -> Date
    private let allowance = Locked(LineAllowance(perSecond: 10))

    package init(log: Log?, clock: @escaping @Sendable () -> Date = Date.init) {
        self.log = log
        self.clock = clock
    }

    /// Writes one refusal, unless this second has had its share.
    package func write(_ message: String, _ fields: [(String, LogValue)]) {
        guard let log, log.enabled(.warning) else { return }
        let atMs = UnixTime.milliseconds(clock())
        guard let leftOut = allowance.withLock({ $0.admit(atMs: atMs) }) else { return }
        log.warning("notification.refused", message, leftOut > 0 ? fields + [("left_out", .integer(Int64(leftOut)))] : fields)
    }
}
