import Dispatch
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import AppStore
@testable import Server

/// Notification POSTs are verified on threads of their own, in two lanes behind bounded queues:
/// payloads from a signer that verified before, and the others (which is all a forger can
/// send). A full lane answers 503 at once (Apple sends it again); the other lane goes on.
@Suite("Notification verifiers' lanes")
struct VerifyQueueTests {
    @Test func aFloodOfUnknownSignersLeavesApplesLaneFree() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        service.waitForHeldNotifications()
        let lanes = VerifierLanes(
            knownSigners: WorkerPool(name: "verify-test", threads: 1), others: WorkerPool(name: "verify-other-test", threads: 1))
        defer { lanes.stop() }
        let verifiers = try AppVerifiers.forApps(of: service.current)
        let ingest = Ingest(verifiers: verifiers, store: service.store, metrics: service.metrics, lanes: lanes, maxQueued: 2)
        func post(_ payload: String) -> (DispatchGroup, Locked<IngestOutcome?>) {
            let (done, outcome) = (DispatchGroup(), Locked<IngestOutcome?>(nil))
            done.enter()
            ingest.receive(appId: "demo", body: SignedNotifications.body(payload)) { answer in
                outcome.withLock { $0 = answer }
                done.leave()
            }
            return (done, outcome)
        }
        // Unknown at first, the test chain's payload goes the others' way, and is then known.
        let first = UUID().uuidString.lowercased()
        let firstPayload = try fixture.signer.notification(uuid: first)
        #expect(try #require(verifiers["demo"]).strict.knowsSigner(of: firstPayload) == false)
        let (firstDone, firstOutcome) = post(firstPayload)
        #expect(firstDone.wait(timeout: .now() + 10) == .success)
        #expect(firstOutcome.value == .stored(uuid: first))
        #expect(try #require(verifiers["demo"]).strict.knowsSigner(of: try fixture.signer.notification()))

        // The others' one verifier is busy: two forged payloads queue, the third is turned away.
        let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        lanes.others.submit {
            started.signal()
            release.wait()
        }
        started.wait()
        let forger = SignedNotifications(chain: try TestChain(name: "Forger"))
        let forged = try (0..<3).map { _ in post(try forger.notification()) }
        #expect(forged[2].1.value == .busy)
        #expect(forged[0].1.value == nil && forged[1].1.value == nil)
        // Apple's next notification is verified and stored meanwhile.
        let next = UUID().uuidString.lowercased()
        let (nextDone, nextOutcome) = post(try fixture.signer.notification(uuid: next))
        #expect(nextDone.wait(timeout: .now() + 10) == .success)
        #expect(nextOutcome.value == .stored(uuid: next))

        release.signal()
        for (done, _) in forged { #expect(done.wait(timeout: .now() + 10) == .success) }
        for (_, outcome) in forged.prefix(2) {
            guard case .rejected? = outcome.value else {
                Issue.record("a forged payload was \(String(describing: outcome.value))")
                continue
            }
        }
        #expect(Routes.response(for: .busy).status == 503)
        #expect(Routes.response(for: .busy).headers["Retry-After"] == "1")
        #expect(service.metrics.render().contains(#"revenuedot_notifications_rejected_total{status="busy"} 1"#))
    }

    /// After a start, the newest stored notification of each app is verified again, so that
    /// Apple's next one goes Apple's lane at once.
    @Test func aStartLearnsTheSignersOfStoredNotifications() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        #expect(try LoopbackConnection(port: service.port).postNotification(try fixture.signer.notification()).status == 200)
        // Verifiers of their own, as a start makes them: they know no signer yet.
        let verifiers = try AppVerifiers.forApps(of: service.current)
        let ingest = Ingest(verifiers: verifiers, store: service.store, metrics: service.metrics)
        let next = try fixture.signer.notification()
        #expect(try #require(verifiers["demo"]).strict.knowsSigner(of: next) == false)
        ingest.learnSigners()
        #expect(try #require(verifiers["demo"]).strict.knowsSigner(of: next))
        // A forger may copy the known header: the payload goes Apple's lane, and its signature fails there.
        let header = try #require(next.split(separator: ".").first)
        let forged = "\(header).e30.\(String(repeating: "A", count: 86))"
        #expect(try #require(verifiers["demo"]).strict.knowsSigner(of: forged))
        guard case .rejected = ingest.receive(appId: "demo", body: SignedNotifications.body(forged)) else {
            Issue.record("a payload under a copied header was not rejected")
            return
        }
    }
}
