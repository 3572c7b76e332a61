import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads that run submitted work in the order it arrives.
///
/// The routes that check signatures (Apple's notifications, the app's posted transactions) run
/// their handlers here rather than on the HTTP worker that read the request (`Routes`). A worker
/// owns its connections, so while it checked three signatures (about 0.4 ms of CPU) the answers
/// and new requests of all its other connections waited; and libmicrohttpd spreads connections
/// over its workers unevenly (under the ingest benchmark one worker had half the connections), so
/// a core could sit idle while one worker had a queue. From one shared queue, whichever thread is
/// free takes the next notification, and the HTTP workers only move bytes.
///
/// Bounded: when `limit` items are already waiting, `submit` refuses and the caller runs the work
/// itself, which holds its HTTP worker as before and so slows the intake instead of queueing
/// bodies without end.
final class WorkPool: Sendable {
    typealias Work = @Sendable () -> Void

    private struct State {
        /// Taken items are nil (so what they hold goes at once) until the array is compacted.
        var items: [Work?] = []
        /// The next item to run: items before it have been taken.
        var head = 0
        var stopping = false
        var waiting: Int { items.count - head }
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()
    private let threads: Int
    /// The most items that wait at once.
    let limit: Int

    /// Starts `threads` threads named `name`.
    init(threads: Int, name: String, limit: Int) {
        precondition(threads > 0 && limit > 0, "a work pool needs a thread and room for one item")
        self.threads = threads
        self.limit = limit
        for _ in 0..<threads {
            finished.enter()
            let started = DispatchSemaphore(value: 0)
            let thread = Thread { [self] in
                // Foundation names the OS thread only once `start()` has returned in the parent
                // (before, the thread does not know itself yet and the name is dropped).
                started.wait()
                Thread.current.name = name
                run()
                finished.leave()
            }
            thread.start()
            started.signal()
        }
    }

    /// One thread per core: the work is CPU-bound.
    static var defaultThreads: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
    /// Requests that may wait for a verifier (an App Store notification is about 14 KiB): past
    /// it, HTTP workers verify themselves and so stop reading new requests while they do.
    static let defaultLimit = 256

    /// Queues `work`; false, with nothing queued, when `limit` items are waiting or the pool is
    /// stopping: the caller runs it.
    func submit(_ work: @escaping Work) -> Bool {
        let queued = state.withLock { state -> Bool in
            guard !state.stopping, state.waiting < limit else { return false }
            state.items.append(work)
            return true
        }
        if queued { available.signal() }
        return queued
    }

    /// Runs `work` on the pool, or here when the pool is full or stopping.
    func run(_ work: @escaping Work) {
        if !submit(work) { work() }
    }

    /// How many items wait for a thread.
    var waiting: Int { state.withLock { $0.waiting } }

    /// Refuses new work, runs what is queued, and waits for the threads to end. Called once.
    func stop() {
        state.withLock { $0.stopping = true }
        for _ in 0..<threads { available.signal() }
        finished.wait()
    }

    private func run() {
        while true {
            available.wait()
            let (work, stopping) = state.withLock { state -> (Work?, Bool) in
                guard state.head < state.items.count else { return (nil, state.stopping) }
                let work = state.items[state.head]
                state.items[state.head] = nil
                state.head += 1
                if state.head == state.items.count {
                    state.items.removeAll(keepingCapacity: true)
                    state.head = 0
                } else if state.head >= 64, state.head * 2 >= state.items.count {
                    // Under steady load the queue is never empty: drop the taken part now and then.
                    state.items.removeFirst(state.head)
                    state.head = 0
                }
                return (work, state.stopping)
            }
            if let work {
                work()
            } else if stopping {
                return
            }
        }
    }
}
