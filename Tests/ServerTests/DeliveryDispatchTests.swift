import Testing

@testable import Server
@testable import Storage
@testable import Tools

/// The worker's decisions as a value, table-tested without threads.
@Suite struct DeliveryDispatchTests {
    func delivery(_ id: String) -> DueDelivery {
        DueDelivery(eventId: id, appId: "demo", customer: nil, attempts: 0, eventJSON: "{}", createdAtMs: 0)
    }

    @Test func nothingIsReadBeforeTheStartOrWhenFull() {
        var dispatch = DeliveryDispatch(capacity: 2)
        #expect(dispatch.beginRead() == nil)
        dispatch.start()
        #expect(dispatch.beginRead()?.room == 2)
        #expect(dispatch.take([delivery("a"), delivery("b"), delivery("c")]) == 2)
        #expect(dispatch.beginRead() == nil)
        #expect(dispatch.inFlight == ["a", "b"])
    }

    /// Behind a backlog, a read waits for the senders' queue to empty or half the capacity to
    /// free up, rather than walking the deliveries in flight for every outcome committed.
    @Test func aReadWaitsForAnEmptyQueueOrHalfTheCapacity() {
        var dispatch = DeliveryDispatch(capacity: 4)
        dispatch.start()
        _ = dispatch.beginRead()
        #expect(dispatch.take([delivery("a"), delivery("b"), delivery("c")]) == 3)
        #expect(dispatch.beginRead() == nil)
        #expect(dispatch.next() == .send(delivery("a")))
        dispatch.recorded("a")
        // Two in flight, both still queued: half the capacity is free.
        #expect(dispatch.beginRead()?.room == 2)
        #expect(dispatch.take([delivery("d")]) == 1)
        #expect(dispatch.beginRead() == nil)
        #expect(dispatch.next() == .send(delivery("b")))
        #expect(dispatch.next() == .send(delivery("c")))
        #expect(dispatch.next() == .send(delivery("d")))
        // Nothing queued: the senders would wait, so it reads for the one free place.
        #expect(dispatch.beginRead()?.room == 1)
    }

    /// A committed outcome frees its place only at the next read: a read already under way may
    /// still see the delivery as due and must not queue it twice.
    @Test func aRecordedDeliveryLeavesAtTheNextReadAndIsNeverQueuedTwice() {
        var dispatch = DeliveryDispatch(capacity: 4)
        dispatch.start()
        _ = dispatch.beginRead()
        #expect(dispatch.take([delivery("a")]) == 1)
        #expect(dispatch.next() == .send(delivery("a")))
        #expect(dispatch.take([delivery("a")]) == 0)
        dispatch.recorded("a")
        #expect(dispatch.inFlight == ["a"])
        #expect(dispatch.beginRead()?.exclude == [])
        #expect(dispatch.take([delivery("a")]) == 1)
    }

    @Test(
        arguments: [
            // queued, running, claimed (nil: unclaimed; else still in time), what a sender does next
            ([String](), true, nil, "wait"),
            (["a"], true, nil, "send a"),
            (["a"], true, true, "send a"),
            (["a"], true, false, "lapsed a"),
            (["a"], false, nil, "stop"),
            (["a"], false, false, "stop"),
        ] as [([String], Bool, Bool?, String)])
    func aSendersNextStep(queued: [String], running: Bool, inTime: Bool?, next: String) {
        var dispatch = DeliveryDispatch(capacity: 4)
        dispatch.start()
        _ = dispatch.beginRead()
        let now = ContinuousClock.now
        _ = dispatch.take(queued.map(delivery), sendBefore: inTime.map { now + .seconds($0 ? 1 : -1) })
        if !running { _ = dispatch.stop() }
        let decided: String =
            switch dispatch.next(at: now) {
            case .stop: "stop"
            case .wait: "wait"
            case .send(let delivery): "send \(delivery.eventId)"
            case .lapsed(let delivery): "lapsed \(delivery.eventId)"
            }
        #expect(decided == next)
        let wasRunning = dispatch.stop()
        #expect(wasRunning == running)
    }

    /// A claimed delivery not sent in time is not sent: it leaves what is in flight at the next
    /// read, so that read may claim it again (if no other node has).
    @Test func aLapsedClaimLeavesWhatIsInFlight() {
        var dispatch = DeliveryDispatch(capacity: 4)
        dispatch.start()
        _ = dispatch.beginRead()
        let now = ContinuousClock.now
        #expect(dispatch.take([delivery("a")], sendBefore: now) == 1)
        #expect(dispatch.take([delivery("b")], sendBefore: now + .seconds(5)) == 1)
        #expect(dispatch.next(at: now) == .lapsed(delivery("a")))
        #expect(dispatch.next(at: now) == .send(delivery("b")))
        #expect(dispatch.beginRead()?.exclude == ["b"])
        #expect(dispatch.take([delivery("a")], sendBefore: now + .seconds(5)) == 1)
        #expect(dispatch.next(at: now) == .send(delivery("a")))
    }

    /// A claim of 3 × the webhook's timeout (at least 10 s) leaves a sender the lease less one
    /// attempt and a second to start one; every webhook timeout leaves some.
    @Test(arguments: [(1, 8), (5, 9), (30, 59), (600, 1199)])
    func aClaimLeavesTheLeaseLessOneAttemptToSend(timeoutSeconds: Int, seconds: Int64) {
        let claimed = ContinuousClock.now
        let leaseMs = Int64(max(10, 3 * timeoutSeconds)) * 1000
        let before = DeliveryWorker.sendBefore(claimedAfter: claimed, leaseMs: leaseMs, timeoutSeconds: timeoutSeconds)
        #expect(before - claimed == .seconds(seconds))
    }
}
