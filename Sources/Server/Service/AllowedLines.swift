import Dispatch
import Foundation
import Threads

/// Lines of one kind written under a `LineAllowance`: carries out its decisions, and writes the
/// summary of the lines left out (`summary`) when no line said them in time.
package final class AllowedLines: Sendable {
    private let allowance: Locked<LineAllowance>
    private let clock: @Sendable () -> Date
    private let summary: @Sendable (_ leftOut: Int) -> Void

    /// - Parameter summary: writes the line that says `leftOut` lines were left out (called on a
    ///   thread of its own).
    package init(
        perSecond: Int, clock: @escaping @Sendable () -> Date = Date.init,
        summary: @escaping @Sendable (_ leftOut: Int) -> Void
    ) {
        allowance = Locked(LineAllowance(perSecond: perSecond))
        self.clock = clock
        self.summary = summary
    }

    /// Whether a line is written now: nil when it is left out; else how many were left out
    /// since the last line or summary written (0 for none), for its `left_out` field.
    package func admit() -> Int? {
        let nowMs = UnixTime.milliseconds(clock())
        switch allowance.withLock({ $0.admit(atMs: nowMs) }) {
        case .write(let leftOut):
            return leftOut
        case .leaveOut(let summaryAtMs):
            if let summaryAtMs { askSummary(at: summaryAtMs, now: nowMs) }
            return nil
        }
    }

    /// Writes the summary of the lines left out and not said yet, if any, now: called once no
    /// more lines of this kind come (what writes them stopped).
    package func flush() {
        if case .write(let leftOut) = allowance.withLock({ $0.flush() }) { summary(leftOut) }
    }

    /// Asks `summaryDue` at `atMs` on `clock`, a timer's wait from `now`. The timer's moment
    /// counts as reached even where `clock` says otherwise (a clock that stands still).
    private func askSummary(at atMs: Int64, now nowMs: Int64) {
        let wait = DispatchTimeInterval.milliseconds(Int(max(0, atMs - nowMs)))
        DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [self] in
            let nowMs = UnixTime.milliseconds(clock())
            switch allowance.withLock({ $0.summaryDue(atMs: max(nowMs, atMs)) }) {
            case .none: break
            case .write(let leftOut): summary(leftOut)
            case .later(let next): askSummary(at: next, now: nowMs)
            }
        }
    }
}
