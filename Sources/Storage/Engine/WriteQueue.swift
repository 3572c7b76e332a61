import AppStore
import Dispatch
import Synchronization

/// Work for the writer thread.
enum WriteItem: Sendable {
    /// Store a notification once, with its payload as the row keeps it (compressed off the
    /// writer thread); the caller waits on the completion.
    case store(NotificationWrite, Completion<StoreOutcome>)
    /// Write the rejects pending at the moment the writer gets to it (`PendingRejects.take`); a
    /// caller that must read them afterwards waits on the completion.
    case rejects(PendingRejects, Completion<Void>?)
    /// Prove the writer can take the write lock; the caller gives up after a deadline
    /// (`Store.healthCheck`), and whichever of the two resolves the completion first counts.
    case healthCheck(Completion<Void>)
    /// Run caller-supplied work inside the write transaction (posted transactions, timers).
    case work(WriteWork, Completion<Void>)
}

/// Work run by the writer inside its transaction, with the same `WriteTransaction` a hand-off gets.
struct WriteWork: Sendable {
    let body: @Sendable (WriteTransaction) throws -> Void
}

/// The queue between the threads that store and the one writer thread.
///
/// Producers append under a `Mutex`; the writer takes everything queued (up to a batch size) in one
/// go, which is what makes group commit batch: while one commit syncs, the next batch accumulates.
/// The writer sleeps on a semaphore that is signalled only when it is known to be asleep, so an
/// enqueue costs one lock and at most one wake-up.
///
/// The queue also counts the commits the flusher has not yet put on disk: while one is, the writer
/// keeps its transaction open for more items (`nextWhileFlushing`), and the flusher wakes it when done.
final class WriteQueue: Sendable {
    private struct State {
        var items: [WriteItem] = []
        var accepting = true
        var writerAsleep = false
        /// Commits handed to the flusher and not yet answered.
        var flushing = 0
        /// Items accepted since the queue was made.
        var accepted = 0
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Queues `item`; false once the queue was closed.
    func enqueue(_ item: WriteItem) -> Bool {
        let outcome: (accepted: Bool, wakeWriter: Bool) = state.withLock { state in
            guard state.accepting else { return (false, false) }
            state.items.append(item)
            state.accepted += 1
            let asleep = state.writerAsleep
            state.writerAsleep = false
            return (true, asleep)
        }
        if outcome.wakeWriter { wake.signal() }
        return outcome.accepted
    }

    /// How many items wait for the writer.
    var depth: Int { state.withLock { $0.items.count } }

    /// How many items were accepted since the queue was made, taken or not.
    var accepted: Int { state.withLock { $0.accepted } }

    /// Whether `close` was called: nothing is queued any more.
    var isClosed: Bool { state.withLock { !$0.accepting } }

    /// Refuses further items; the writer still drains what is queued.
    func close() {
        let wakeWriter = state.withLock { state in
            state.accepting = false
            let asleep = state.writerAsleep
            state.writerAsleep = false
            return asleep
        }
        if wakeWriter { wake.signal() }
    }

    /// For the writer: a commit was handed to the flusher.
    func flushStarted() {
        state.withLock { $0.flushing += 1 }
    }

    /// For the flusher: a commit is on disk and answered; wakes the writer if it waits for that.
    func flushFinished() {
        let wakeWriter = state.withLock { state in
            state.flushing -= 1
            let asleep = state.writerAsleep
            state.writerAsleep = false
            return asleep
        }
        if wakeWriter { wake.signal() }
    }

    /// For the writer: the next batch of at most `maximum` items, blocking while the queue is empty;
    /// nil once the queue is closed and drained.
    func next(maximum: Int) -> [WriteItem]? {
        take(maximum: maximum) { _ in true }
    }

    /// For the writer with a transaction open: items queued now (at most `maximum`); while none are
    /// and a commit is still being flushed, waits for an item or the end of the flush. Nil once
    /// nothing is queued and nothing is being flushed (time to commit), or the queue is closed.
    func nextWhileFlushing(maximum: Int) -> [WriteItem]? {
        take(maximum: maximum) { state in state.flushing > 0 && state.accepting }
    }

    /// Up to `maximum` queued items; when there are none, sleeps while `wait` holds and the queue
    /// accepts items, and otherwise gives nil.
    private func take(maximum: Int, waitingWhile wait: (State) -> Bool) -> [WriteItem]? {
        enum Step {
            case batch([WriteItem])
            case sleep
            case finished
        }
        while true {
            let step: Step = state.withLock { state in
                if state.items.isEmpty {
                    guard state.accepting, wait(state) else { return .finished }
                    state.writerAsleep = true
                    return .sleep
                }
                guard state.items.count > maximum else {
                    defer { state.items.removeAll(keepingCapacity: true) }
                    return .batch(state.items)
                }
                defer { state.items.removeFirst(maximum) }
                return .batch(Array(state.items.prefix(maximum)))
            }
            switch step {
            case .batch(let items): return items
            case .finished: return nil
            case .sleep: wake.wait()
            }
        }
    }
}
