import Dispatch
import Synchronization

/// A one-shot result handed from the writer or flusher thread to the one thread waiting for it.
final class Completion<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, StoreError>?>(nil)
    private let signal = DispatchSemaphore(value: 0)
    /// Called with the result instead of waking a waiter, for callers that do not block.
    private let callback: (@Sendable (Result<Value, StoreError>) -> Void)?

    /// A completion someone waits for with `wait()`.
    init() { callback = nil }

    /// A completion that hands its result to `callback` on the thread that resolves it (the flusher
    /// for committed work, the writer for failures); nobody waits.
    init(callback: @escaping @Sendable (Result<Value, StoreError>) -> Void) { self.callback = callback }

    /// Publishes the result and wakes the waiter (or calls the callback). Called once.
    func resolve(_ outcome: Result<Value, StoreError>) {
        if let callback {
            callback(outcome)
            return
        }
        result.withLock { $0 = outcome }
        signal.signal()
    }

    /// Blocks until the result is published.
    func wait() -> Result<Value, StoreError> {
        signal.wait()
        return published()
    }

    /// Blocks until the result is published or `deadline` passes (then nil).
    func wait(until deadline: DispatchTime) -> Result<Value, StoreError>? {
        guard signal.wait(timeout: deadline) == .success else { return nil }
        return published()
    }

    private func published() -> Result<Value, StoreError> {
        result.withLock { $0 } ?? .failure(StoreError(.unavailable, "completion signalled without a result"))
    }
}

/// Passes on the first of several answers that race (the writer's and a timeout), once.
final class FirstAnswer<Value: Sendable>: Sendable {
    private let answered = Atomic<Bool>(false)
    private let done: @Sendable (Result<Value, StoreError>) -> Void

    init(_ done: @escaping @Sendable (Result<Value, StoreError>) -> Void) { self.done = done }

    /// Calls `done` with `outcome` unless an answer came first.
    @Sendable func give(_ outcome: Result<Value, StoreError>) {
        guard answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        done(outcome)
    }
}
