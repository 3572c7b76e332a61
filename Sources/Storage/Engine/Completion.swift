import Dispatch
import Synchronization
import Threads

/// A one-shot result handed from the writer or flusher thread to the one thread waiting for it.
///
/// The first result counts: one resolved again (a health check's timeout racing the writer's
/// answer) ignores the later ones.
final class Completion<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, StoreError>?>(nil)
    private let resolved = Atomic<Bool>(false)
    /// What `wait` blocks on; none for a completion with a callback, which nobody waits for.
    private let signal: MonotonicSemaphore?
    /// Called with the result instead of waking a waiter, for callers that do not block.
    private let callback: (@Sendable (Result<Value, StoreError>) -> Void)?

    /// A completion someone waits for with `wait()`.
    init() {
        callback = nil
        signal = MonotonicSemaphore()
    }

    /// A completion that hands its result to `callback` on the thread that resolves it (the flusher
    /// for committed work, the writer for failures); nobody waits.
    init(callback: @escaping @Sendable (Result<Value, StoreError>) -> Void) {
        self.callback = callback
        signal = nil
    }

    /// Publishes the result and wakes the waiter (or calls the callback), unless a result was
    /// published before.
    func resolve(_ outcome: Result<Value, StoreError>) {
        guard resolved.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        if let callback {
            callback(outcome)
            return
        }
        result.withLock { $0 = outcome }
        signal?.signal()
    }

    /// Blocks until the result is published.
    func wait() -> Result<Value, StoreError> {
        signal?.wait()
        return published()
    }

    /// Blocks until the result is published or `deadline` passes (then nil).
    func wait(until deadline: DispatchTime) -> Result<Value, StoreError>? {
        guard (signal?.wait(timeout: deadline) ?? .success) == .success else { return nil }
        return published()
    }

    private func published() -> Result<Value, StoreError> {
        result.withLock { $0 } ?? .failure(StoreError(.unavailable, "completion signalled without a result"))
    }
}
