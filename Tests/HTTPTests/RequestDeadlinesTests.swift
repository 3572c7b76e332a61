import Testing

@testable import HTTP

/// When a connection owes too much, as a table of values.
@Suite("Request deadlines")
struct RequestDeadlineEntryTests {
    private static let opened = ContinuousClock.now

    @Test(arguments: [
        // (seconds since it owes, headers in, late)
        (0.5, false, false), (1.5, false, true), (1.5, true, false), (3.5, true, true), (3.5, false, true),
    ])
    func lateness(owed: Double, headersIn: Bool, late: Bool) {
        let entry = RequestDeadlines.Entry(descriptor: 3, phase: .owingRequest(since: Self.opened, headersIn: headersIn))
        let now = Self.opened + .milliseconds(Int(owed * 1000))
        #expect(entry.isLate(at: now, headerLimit: .seconds(1), requestLimit: .seconds(3)) == late)
    }

    @Test func noLimitOrNothingOwedIsNeverLate() {
        let later = Self.opened + .seconds(3600)
        let owing = RequestDeadlines.Entry(descriptor: 3, phase: .owingRequest(since: Self.opened, headersIn: false))
        #expect(!owing.isLate(at: later, headerLimit: nil, requestLimit: nil))
        #expect(owing.isLate(at: later, headerLimit: .seconds(1), requestLimit: nil))
        #expect(owing.isLate(at: later, headerLimit: nil, requestLimit: .seconds(1)))
        for phase in [RequestDeadlines.Entry.Phase.handling, .cut] {
            let entry = RequestDeadlines.Entry(descriptor: 3, phase: phase)
            #expect(!entry.isLate(at: later, headerLimit: .seconds(1), requestLimit: .seconds(1)))
        }
        #expect(RequestDeadlines(headerLimit: nil, requestLimit: nil) == nil)
    }

    /// Taking an answer is owed within the request limit from its queueing; the header limit
    /// does not apply to it.
    @Test(arguments: [
        // (seconds since the answer was queued, late)
        (0.5, false), (2.5, false), (3.5, true),
    ])
    func answerTaking(owed: Double, late: Bool) {
        let entry = RequestDeadlines.Entry(descriptor: 3, phase: .owingAnswerTaken(since: Self.opened))
        let now = Self.opened + .milliseconds(Int(owed * 1000))
        #expect(entry.isLate(at: now, headerLimit: .seconds(1), requestLimit: .seconds(3)) == late)
        #expect(!entry.isLate(at: now, headerLimit: .seconds(1), requestLimit: nil))
    }

    /// Pipelined answers taken slowly add up: each finished within the limit, but their time in
    /// all counts against the next one; answers taken at once count nothing.
    @Test func slowAnswersAddUpAcrossPipelinedRequests() {
        let limit = Duration.seconds(30)
        var entry = RequestDeadlines.Entry(descriptor: 3, phase: .owingAnswerTaken(since: Self.opened))
        var now = Self.opened
        for _ in 0..<7 {
            now += .seconds(4)
            #expect(!entry.isLate(at: now, headerLimit: .seconds(10), requestLimit: limit))
            entry.answered(at: now)
            entry.phase = .owingAnswerTaken(since: now)
        }
        #expect(entry.slowTaking == .seconds(28))
        #expect(!entry.isLate(at: now + .seconds(1), headerLimit: .seconds(10), requestLimit: limit))
        #expect(entry.isLate(at: now + .seconds(3), headerLimit: .seconds(10), requestLimit: limit))

        var quick = RequestDeadlines.Entry(descriptor: 3, phase: .owingAnswerTaken(since: Self.opened))
        for step in 1...100_000 {
            let at = Self.opened + .milliseconds(step * 5)
            quick.answered(at: at)
            quick.phase = .owingAnswerTaken(since: at)
        }
        #expect(quick.slowTaking == .zero)
        quick.answered(at: Self.opened + .seconds(3600))
        #expect(quick.phase == .owingRequest(since: Self.opened + .seconds(3600), headersIn: false))

        // A quick answer starts the count again: slow answers now and then, over hours, never
        // add up to the limit.
        var kept = RequestDeadlines.Entry(descriptor: 3, phase: .owingAnswerTaken(since: Self.opened))
        now = Self.opened
        for _ in 0..<20 {
            now += .seconds(5)
            kept.answered(at: now)
            kept.phase = .owingAnswerTaken(since: now)
            now += .milliseconds(10)
            kept.answered(at: now)
            kept.phase = .owingAnswerTaken(since: now)
        }
        #expect(kept.slowTaking == .zero)
        #expect(!kept.isLate(at: now + .seconds(29), headerLimit: .seconds(10), requestLimit: limit))
    }
}
