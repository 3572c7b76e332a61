/// How many lines of one kind a log takes a second: the first `perSecond` of each second are
/// written, the rest counted and left out, and the next line written says how many were.
///
/// A decision, no I/O: the caller writes the line when `admit` says so.
package struct LineAllowance: Sendable, Equatable {
    package let perSecond: Int
    private var second: Int64 = .min
    private var written = 0
    private var leftOut = 0

    package init(perSecond: Int) { self.perSecond = max(perSecond, 1) }

    /// Whether a line at `atMs` is written: nil when it is left out; else how many were left
    /// out since the last one written (0 for none).
    package mutating func admit(atMs: Int64) -> Int? {
        let now = atMs >= 0 ? atMs / 1000 : (atMs + 1) / 1000 - 1
        if now != second {
            (second, written) = (now, 0)
        }
        guard written < perSecond else {
            leftOut += 1
            return nil
        }
        written += 1
        defer { leftOut = 0 }
        return leftOut
    }
}
