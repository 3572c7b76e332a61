import Foundation

/// A clock tests move forward by hand (the scheduler and webhook workers read it).
final class ManualClock: Sendable {
    private let offset = Locked<TimeInterval>(0)

    /// Real time plus everything `advance` added.
    var now: Date { Date().addingTimeInterval(offset.value) }

    func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }

    var function: @Sendable () -> Date { { [self] in now } }
}
