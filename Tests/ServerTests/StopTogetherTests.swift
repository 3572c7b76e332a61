import Dispatch
import Foundation
import Testing
import Threads

@testable import Server

/// `stopTogether`: the loop `RevenueDotService.shutdown` stops its services with.
@Suite("Stopping services together")
struct StopTogetherTests {
    /// A service that records what it was asked, and stops (or not) as told.
    final class FakeService: StoppableService {
        let name: String
        let stops: Bool
        let stopLimit: Duration?
        let log: Locked<[String]>
        let waitedUntil = Locked<DispatchTime?>(nil)

        init(_ name: String, stops: Bool = true, limit: Duration? = nil, log: Locked<[String]>) {
            self.name = name
            self.stops = stops
            self.stopLimit = limit
            self.log = log
        }

        func beginStop() { log.withLock { $0.append("begin \(name)") } }

        func waitStopped(until deadline: DispatchTime) -> Bool {
            log.withLock { $0.append("wait \(name)") }
            waitedUntil.withLock { $0 = deadline }
            return stops
        }
    }

    @Test func everyServiceIsAskedBeforeAnyIsWaitedFor() {
        let log = Locked<[String]>([])
        let services = ["a", "b", "c"].map { FakeService($0, log: log) }
        #expect(stopTogether(services, before: .now + .seconds(10)))
        #expect(log.value == ["begin a", "begin b", "begin c", "wait a", "wait b", "wait c"])
    }

    @Test(arguments: [
        (limit: Duration?.none, expectedSeconds: 10.0), (limit: .seconds(2), expectedSeconds: 2.0),
        (limit: .seconds(30), expectedSeconds: 10.0),
    ])
    func eachWaitEndsAtTheSharedDeadlineOrItsOwnLimit(limit: Duration?, expectedSeconds: Double) {
        let service = FakeService("s", limit: limit, log: Locked([]))
        let asked = DispatchTime.now()
        stopTogether([service], before: .now + .seconds(10))
        let waited = Double((service.waitedUntil.value?.uptimeNanoseconds ?? 0) - asked.uptimeNanoseconds) / 1e9
        #expect(abs(waited - expectedSeconds) < 0.5, "waited until \(waited) s from the ask")
    }

    /// The stop says how long it may yet wait: the latest limit among the services still
    /// running, not the shared deadline; and nothing when all stopped in time.
    static let waitingCases: [(limits: [Duration?], stops: [Bool], expected: Int64?)] = [
        ([.seconds(3)], [false], 3), ([.seconds(3), nil], [false, true], 3), ([.seconds(3), nil], [false, false], 20),
        ([.seconds(3)], [true], nil),
    ]

    @Test(arguments: waitingCases)
    func waitingSaysTheLatestLimitOfThoseStillRunning(limits: [Duration?], stops: [Bool], expected: Int64?) {
        let services = zip(limits, stops).enumerated().map { index, pair in
            FakeService("s\(index)", stops: pair.1, limit: pair.0, log: Locked([]))
        }
        let said = Locked<[Int64]>([])
        stopTogether(services, before: .now + .seconds(20), patience: .zero) { atMost in
            said.withLock {
                $0.append(Int64((Double(atMost.components.seconds) + Double(atMost.components.attoseconds) / 1e18).rounded()))
            }
        }
        #expect(said.value == (expected.map { [$0] } ?? []))
    }

    @Test func oneServiceThatDoesNotStopMakesTheStopFailButOthersAreStillWaitedFor() {
        let log = Locked<[String]>([])
        let services = [FakeService("a", stops: false, log: log), FakeService("b", log: log)]
        #expect(!stopTogether(services, before: .now + .seconds(1)))
        #expect(log.value.suffix(2) == ["wait a", "wait b"])
    }

    /// `stopInOrder`: each phase is asked and waited for before the next is asked; only a
    /// phase that counts makes a late stop a failure, and every phase is stopped either way.
    @Test(arguments: [
        (firstStops: true, secondStops: true, secondCounts: true, expected: true),
        (firstStops: false, secondStops: true, secondCounts: true, expected: false),
        (firstStops: true, secondStops: false, secondCounts: true, expected: false),
        (firstStops: true, secondStops: false, secondCounts: false, expected: true),
    ])
    func phasesStopOneAfterAnother(firstStops: Bool, secondStops: Bool, secondCounts: Bool, expected: Bool) {
        let log = Locked<[String]>([])
        let phases = [
            StopPhase([FakeService("a", stops: firstStops, log: log), FakeService("b", log: log)], counts: true),
            StopPhase([FakeService("c", stops: secondStops, log: log)], counts: secondCounts),
        ]
        #expect(stopInOrder(phases, before: .now + .seconds(1)) == expected)
        #expect(log.value == ["begin a", "begin b", "wait a", "wait b", "begin c", "wait c"])
    }

    /// A pass tracked by a dispatch group: asked to stop, it runs its stop; stopped once the
    /// group is empty.
    @Test func aGroupedPassHasStoppedWhenItsGroupIsEmpty() {
        let group = DispatchGroup()
        let asked = Locked(false)
        let pass = GroupedPass(group) { asked.withLock { $0 = true } }
        group.enter()
        pass.beginStop()
        #expect(asked.value)
        #expect(!pass.waitStopped(until: .now() + 0.05))
        group.leave()
        #expect(pass.waitStopped(until: .now() + 1))
    }

    /// A named phase still running after its patience is said once, with the longest it may
    /// yet take; a phase that stops at once, or has no name, is not.
    @Test func aPhaseThatMakesTheStopWaitIsSaid() {
        let log = Locked<[String]>([])
        let said = Locked<[String]>([])
        let phases = [
            StopPhase([FakeService("quick", log: log)], counts: true, name: "quick things"),
            StopPhase([FakeService("slow", stops: false, log: log)], counts: false, name: "webhook sends in flight"),
            StopPhase([FakeService("unnamed", stops: false, log: log)], counts: false),
        ]
        let stopped = stopInOrder(phases, before: .now + .seconds(10), patience: .milliseconds(10)) { phase, atMost in
            said.withLock { $0.append("\(phase) \(atMost <= .seconds(10))") }
        }
        #expect(stopped)
        #expect(said.value == ["webhook sends in flight true"])
    }
}
