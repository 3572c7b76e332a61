import Dispatch
import Synchronization

/// A fixed number of threads of its own that run submitted work, oldest first: for work that
/// may block on I/O (a storage read or commit while a disk hangs). On Dispatch's shared pool such
/// work holds the threads the rest of the process needs (its timers, its health checks), and
/// Dispatch adds a thread for a blocked one only about once a second. Here, work that blocks
/// holds only the pool's threads; what is submitted meanwhile waits its turn.
public final class WorkerPool: Sendable {
    private let state = Mutex(State())
    private let ready = DispatchSemaphore(value: 0)
    private let threads: Int

    private struct State {
        var queue: [@Sendable () -> Void] = []
        var head = 0
        var stopped = false
    }

    /// Starts `threads` threads (at least one) named `name`.
    public init(name: String, threads: Int) {
        self.threads = max(1, threads)
        for _ in 0..<self.threads {
            NamedThread.start(name) { [self] in run() }
        }
    }

    /// Queues `work`; dropped once the pool is stopped.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        let queued = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.queue.append(work)
            return true
        }
        if queued { ready.signal() }
    }

    /// Work queued and not yet begun.
    public var queued: Int { state.withLock { $0.queue.count - $0.head } }

    /// Stops taking work and drops what is queued; each thread ends once its work in hand is
    /// done. Does not wait for it (work blocked on a hung disk would hold the caller too).
    public func stop() {
        let first = state.withLock { state -> Bool in
            let first = !state.stopped
            state.stopped = true
            state.queue = []
            state.head = 0
            return first
        }
        // Wake every thread, idle or not, so each sees the stop.
        if first { for _ in 0..<threads { ready.signal() } }
    }

    private func run() {
        while true {
            ready.wait()
            let next = state.withLock { state -> (@Sendable () -> Void)?? in
                if state.stopped { return .some(nil) }
                guard state.head < state.queue.count else { return nil }
                let work = state.queue[state.head]
                state.head += 1
                // Drop what was taken once the front half is spent: amortized O(1) a take.
                if state.head > 64, state.head * 2 > state.queue.count {
                    state.queue.removeFirst(state.head)
                    state.head = 0
                }
                return .some(work)
            }
            switch next {
            case .some(nil): return
            case .some(let work?): work()
            case nil: continue
            }
        }
    }
}
