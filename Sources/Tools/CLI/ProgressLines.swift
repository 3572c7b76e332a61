import Foundation
import Server
import Threads

/// A long command's progress lines on standard error: one a second on a terminal, one every
/// 10 s into a log (a file or a pipe), and always the last.
final class ProgressLines: Sendable {
    private let every: Duration
    private let last = Locked<ContinuousClock.Instant?>(nil)

    init() {
        every = isatty(2) == 1 ? .seconds(1) : .seconds(10)
    }

    /// Writes `line` (a newline added) when the last was long enough ago, or `final` says it is the last.
    func say(_ line: @autoclosure () -> String, final: Bool = false) {
        let now = ContinuousClock.now
        let due = last.withLock { last in
            guard final || last.map({ now - $0 >= every }) ?? true else { return false }
            last = now
            return true
        }
        if due { StandardStreams.error(line() + "\n") }
    }
}
