import Foundation
import Synchronization

/// Ends a client's calls early when its owner stops: the waits between attempts (up to
/// `RetryPolicy.maximumDelaySeconds`, and a rate's or a 429's hold) end at once, and no
/// further attempt is made. An attempt in progress runs to its answer or its timeout.
public final class CallCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)

    public init() {}

    /// From now on, calls made with it fail without another attempt.
    public func cancel() { cancelled.store(true, ordering: .releasing) }

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Waits `seconds`, or less once cancelled; false when cancelled.
    func wait(_ seconds: Double) -> Bool {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
        while !isCancelled {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < end else { return true }
            Thread.sleep(forTimeInterval: min(Self.slice, Double(end - now) / 1e9))
        }
        return false
    }

    /// How often a wait looks whether it was cancelled.
    static let slice = 0.05
}
