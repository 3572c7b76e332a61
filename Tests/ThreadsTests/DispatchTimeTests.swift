import Dispatch
import Testing

@testable import Threads

@Suite struct DispatchTimeTests {
    /// Seconds and their fractions both count, down to the nanosecond.
    @Test func afterIsTheDurationFromNow() {
        let before = DispatchTime.now().uptimeNanoseconds
        let deadline = DispatchTime.after(.seconds(2) + .nanoseconds(500_000_123)).uptimeNanoseconds
        let after = DispatchTime.now().uptimeNanoseconds
        #expect(deadline >= before + 2_500_000_123)
        #expect(deadline <= after + 2_500_000_123)
    }

    @Test func zeroIsNow() {
        let before = DispatchTime.now().uptimeNanoseconds
        let deadline = DispatchTime.after(.zero).uptimeNanoseconds
        #expect(deadline >= before && deadline <= DispatchTime.now().uptimeNanoseconds)
    }

    /// Whole seconds and their fraction both count.
    @Test func durationInSeconds() {
        #expect((Duration.seconds(2) + .milliseconds(250)).inSeconds == 2.25)
        #expect(Duration.nanoseconds(1).inSeconds == 1e-9)
        #expect(Duration.zero.inSeconds == 0)
    }
}
