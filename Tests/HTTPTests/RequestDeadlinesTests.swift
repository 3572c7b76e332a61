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
}
