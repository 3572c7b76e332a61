import Dispatch
import Synchronization

/// A one-shot result handed from the writer thread to the one thread waiting for it.
final class Completion<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, StoreError>?>(nil)
    private let signal = DispatchSemaphore(value: 0)

    /// Publishes the result and wakes the waiter. Called once.
    func resolve(_ outcome: Result<Value, StoreError>) {
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
