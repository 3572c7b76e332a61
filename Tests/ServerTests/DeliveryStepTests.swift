import Storage
import Testing

@testable import Server

/// `DeliveryStep.after`: what an attempt makes of a delivery, decided as a value before the
/// worker writes it (`Deliveries.record`).
@Suite("Delivery steps")
struct DeliveryStepTests {
    static let delays = [10, 60, 600]

    @Test(arguments: [
        (DeliveryOutcome.delivered(status: 204), 0, DeliveryStep.delivered(attempts: 1, atMs: 1_000, status: 204)),
        (.delivered(status: 200), 3, .delivered(attempts: 4, atMs: 1_000, status: 200)),
        (.failed(status: 500, reason: "boom"), 0, .retry(attempts: 1, atMs: 11_000, status: 500, reason: "boom")),
        (.failed(status: nil, reason: "timed out"), 1, .retry(attempts: 2, atMs: 61_000, status: nil, reason: "timed out")),
        (.failed(status: 503, reason: "busy"), 2, .retry(attempts: 3, atMs: 601_000, status: 503, reason: "busy")),
        (.failed(status: 410, reason: "gone"), 3, .dead(attempts: 4, atMs: 1_000, status: 410, reason: "gone")),
    ])
    func anAttemptGivesItsStep(outcome: DeliveryOutcome, attemptsBefore: Int, expected: DeliveryStep) {
        #expect(
            DeliveryStep.after(outcome, attemptsBefore: attemptsBefore, retryDelaysSeconds: Self.delays, at: 1_000) == expected)
    }

    @Test func withoutRetriesAFailureIsDeadAtOnceAndTheStatusSaysSo() {
        let step = DeliveryStep.after(.failed(status: 500, reason: "x"), attemptsBefore: 0, retryDelaysSeconds: [], at: 5)
        #expect(step == .dead(attempts: 1, atMs: 5, status: 500, reason: "x"))
        #expect(step.status == "dead")
        #expect(
            DeliveryStep.after(.delivered(status: 200), attemptsBefore: 0, retryDelaysSeconds: [], at: 5).status == "delivered")
        #expect(
            DeliveryStep.after(.failed(status: nil, reason: ""), attemptsBefore: 0, retryDelaysSeconds: [1], at: 5).status
                == "pending")
    }

    @Test func aRetryAtTheEndOfTimeStaysThere() {
        let step = DeliveryStep.after(
            .failed(status: nil, reason: "x"), attemptsBefore: 0, retryDelaysSeconds: [60], at: .max - 10)
        #expect(step == .retry(attempts: 1, atMs: .max, status: nil, reason: "x"))
    }

    @Test(arguments: [(0, 1.0), (1, 1.0), (2, 2.0), (29, 29.0), (30, 30.0), (500, 30.0)])
    func aFailedCommitIsTriedAgainAfterAGrowingPause(attempt: Int, seconds: Double) {
        #expect(DeliveryDispatch.pauseBeforeRecordingAgain(afterAttempt: attempt) == seconds)
    }
}
