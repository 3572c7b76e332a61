import Synchronization

/// A value behind a lock that escaping closures may capture (a `Mutex` cannot be captured).
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try mutex.withLock(body)
    }

    /// The current value (a copy).
    public var value: Value { mutex.withLock { $0 } }
}

extension Locked where Value == Bool {
    /// Sets the flag; whether this call set it (false when it was set already).
    public func claim() -> Bool {
        withLock { flag in
            defer { flag = true }
            return !flag
        }
    }
}
