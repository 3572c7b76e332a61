import Testing

@testable import Server

/// `LineAllowance`: the first lines of each second are written, the rest counted, and the count
/// given with the next line written.
@Suite struct LineAllowanceTests {
    @Test(arguments: [
        // (perSecond, times in ms, what each call answers: nil left out, else the count before)
        (2, [0, 10, 20, 30, 999], [0, 0, nil, nil, nil] as [Int?]),
        (2, [0, 10, 20, 1000, 1001, 1002], [0, 0, nil, 1, 0, nil]),
        (1, [5_000, 5_500, 9_000], [0, nil, 1]),
        // Before 1970 a second still starts at a whole second.
        (1, [-1500, -1001, -999], [0, nil, 1]),
    ])
    func writesTheFirstOfEachSecondAndCountsTheRest(perSecond: Int, times: [Int64], answers: [Int?]) {
        var allowance = LineAllowance(perSecond: perSecond)
        #expect(times.map { allowance.admit(atMs: $0) } == answers)
    }
}
