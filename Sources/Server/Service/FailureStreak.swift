import Synchronization

/// The failures of one background loop (a pass that could not read or write storage): each is
/// counted in `revenuedot_background_failures_total{task}`, and the log says when they start
/// and when the loop works again, once each however many passes a streak covers. A loop that
/// keeps failing is never silent, and never floods the log.
package final class FailureStreak: Sendable {
    private let task: String
    private let fields: [(String, LogValue)]
    private let log: Log?
    private let counter: LabeledCounter?
    private let failing = Mutex(false)

    /// - Parameters:
    ///   - task: the loop, as `revenuedot_background_failures_total` labels it.
    ///   - fields: what else names the loop in its lines (its app and webhook).
    package init(task: String, fields: [(String, LogValue)] = [], log: Log?, metrics: Metrics?) {
        self.task = task
        self.fields = [("task", .text(task))] + fields
        self.log = log
        counter = metrics?.backgroundFailures
    }

    /// A pass failed with `error`; the next pass tries again.
    package func failed(_ error: any Error) {
        counter?.increment(label: task)
        let starts = failing.withLock { failing in
            defer { failing = true }
            return !failing
        }
        guard starts else { return }
        log?.warning("background.failing", "tried again at each pass", fields + [("error", .text("\(error)"))])
    }

    /// A pass worked: a streak of failures, if any, is over.
    package func succeeded() {
        let ends = failing.withLock { failing in
            defer { failing = false }
            return failing
        }
        guard ends else { return }
        log?.info("background.recovered", "works again", fields)
    }
}
