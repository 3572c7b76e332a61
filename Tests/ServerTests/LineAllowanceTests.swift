import Testing

@testable import Server

/// `LineAllowance`: the first lines of each second are written, the rest counted, and the count
/// said by the next line written or, when a whole second passes without one, by a summary.
@Suite struct LineAllowanceTests {
    /// One input: a line at a time, or the summary asked for at a time (`summaryDue`).
    enum Step: Sendable {
        case line(Int64)
        case summary(Int64)
        /// The log is about to end: whatever was left out is said now.
        case flush
    }

    /// What each step answers, written short: `write N` (a line saying N left out), `out` or
    /// `out@MS` (left out; a summary to be asked for at MS), `none`, `summary N`, `later@MS`,
    /// `flush N` / `flush none`.
    static func run(_ allowance: inout LineAllowance, _ step: Step) -> String {
        switch step {
        case .line(let ms):
            switch allowance.admit(atMs: ms) {
            case .write(let leftOut): "write \(leftOut)"
            case .leaveOut(nil): "out"
            case .leaveOut(let at?): "out@\(at)"
            }
        case .summary(let ms):
            switch allowance.summaryDue(atMs: ms) {
            case .none: "none"
            case .write(let leftOut): "summary \(leftOut)"
            case .later(let at): "later@\(at)"
            }
        case .flush:
            switch allowance.flush() {
            case .write(let leftOut): "flush \(leftOut)"
            default: "flush none"
            }
        }
    }

    @Test(
        arguments: [
            // (perSecond, steps, answers)
            (2, [.line(0), .line(10), .line(20), .line(30), .line(999)], ["write 0", "write 0", "out@2000", "out", "out"]),
            // The next line written says the count; the summary asked for then has nothing to say.
            (
                2, [.line(0), .line(10), .line(20), .line(1000), .line(1001), .summary(2000)] as [Step],
                ["write 0", "write 0", "out@2000", "write 1", "write 0", "none"]
            ),
            // No line in the second after: the summary says the count, once.
            (
                1, [.line(5_000), .line(5_500), .line(5_600), .summary(7_000), .line(9_000)],
                ["write 0", "out@7000", "out", "summary 2", "write 0"]
            ),
            // Lines go on being left out: each second's first line says the last one's count, and
            // the summary waits for a second with none.
            (
                1,
                [
                    .line(0), .line(10), .line(1_000), .line(1_010), .summary(2_000), .line(2_000), .line(2_010), .summary(3_000),
                    .summary(4_000),
                ],
                ["write 0", "out@2000", "write 1", "out", "later@3000", "write 1", "out", "later@4000", "summary 1"]
            ),
            // A summary asked for early says nothing yet.
            (1, [.line(0), .line(10), .summary(1_500), .summary(2_000)], ["write 0", "out@2000", "later@2000", "summary 1"]),
            // After a summary, the next line left out asks for one again.
            (
                1, [.line(0), .line(10), .summary(2_000), .line(2_500), .line(2_600)],
                ["write 0", "out@2000", "summary 1", "write 0", "out@4000"]
            ),
            // At the end, the count not said yet is said at once, and only once; the summary asked
            // for then has nothing left, and the next line left out asks for one again.
            (
                1, [.line(0), .line(10), .line(20), .flush, .flush, .summary(2_000), .line(30), .line(40)] as [Step],
                ["write 0", "out@2000", "out", "flush 2", "flush none", "none", "out@2000", "out"]
            ),
            // Nothing left out, or already said by a line: nothing to flush.
            (
                1, [.flush, .line(0), .line(10), .line(1_000), .flush],
                ["flush none", "write 0", "out@2000", "write 1", "flush none"]
            ),
            // Before 1970 a second still starts at a whole second.
            (1, [.line(-1500), .line(-1001), .line(-999)], ["write 0", "out@0", "write 1"]),
        ] as [(Int, [Step], [String])])
    func writesTheFirstOfEachSecondAndSaysTheCountOfTheRest(perSecond: Int, steps: [Step], answers: [String]) {
        var allowance = LineAllowance(perSecond: perSecond)
        #expect(steps.map { Self.run(&allowance, $0) } == answers)
    }
}
