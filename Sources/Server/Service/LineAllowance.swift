/// How many lines of one kind a log takes a second: the first `perSecond` of each second are
/// written, the rest counted and left out. The next line written says how many were; when a
/// whole second passes with no line to say it, a summary line does, so a count is never lost
/// and the summary never adds a line to a second that has its share.
///
/// A decision, no I/O: the caller writes the line when `admit` says so, and asks `summaryDue`
/// at the moment it names (`AllowedLines` does both).
package struct LineAllowance: Sendable, Equatable {
    /// What to do with one line.
    package enum Admission: Sendable, Equatable {
        /// Write it, saying how many lines were left out before it (0 for none).
        case write(leftOut: Int)
        /// Leave it out. `summaryAtMs` is set when no `summaryDue` is awaited yet: the caller asks
        /// `summaryDue` then.
        case leaveOut(summaryAtMs: Int64?)
    }

    /// What to do about the lines left out that no line has said yet.
    package enum Summary: Sendable, Equatable {
        /// Nothing is left unsaid.
        case none
        /// Write a summary line saying `leftOut` lines were left out.
        case write(leftOut: Int)
        /// A line may still say them: ask `summaryDue` again at `atMs`.
        case later(atMs: Int64)
    }

    package let perSecond: Int
    private var second: Int64 = .min
    private var written = 0
    private var leftOut = 0
    /// The second of the first line left out that no line has said yet.
    private var unsaidSince: Int64?
    /// A `summaryAtMs` or `later` was given and its `summaryDue` has not come yet.
    private var summaryAwaited = false

    package init(perSecond: Int) { self.perSecond = max(perSecond, 1) }

    /// What to do with a line at `atMs`.
    package mutating func admit(atMs: Int64) -> Admission {
        let now = Self.second(of: atMs)
        if now != second {
            (second, written) = (now, 0)
        }
        guard written < perSecond else {
            leftOut += 1
            if unsaidSince == nil { unsaidSince = now }
            guard !summaryAwaited else { return .leaveOut(summaryAtMs: nil) }
            summaryAwaited = true
            return .leaveOut(summaryAtMs: Self.summaryMs(after: now))
        }
        written += 1
        defer { (leftOut, unsaidSince) = (0, nil) }
        return .write(leftOut: leftOut)
    }

    /// Whether the lines left out and not said yet are due a summary at `atMs`: once the whole
    /// second after the first of them has passed with no line written to say them.
    package mutating func summaryDue(atMs: Int64) -> Summary {
        guard let unsaidSince, leftOut > 0 else {
            summaryAwaited = false
            return .none
        }
        let due = Self.summaryMs(after: unsaidSince)
        guard atMs >= due else { return .later(atMs: due) }
        summaryAwaited = false
        defer { (leftOut, self.unsaidSince) = (0, nil) }
        return .write(leftOut: leftOut)
    }

    /// The lines left out and not said yet, said now whatever the time: no more lines of this
    /// kind come (what writes them stopped, at a stop or a reload), and a summary's timer may
    /// not fire before the process ends.
    package mutating func flush() -> Summary {
        summaryAwaited = false
        guard leftOut > 0 else { return .none }
        defer { (leftOut, unsaidSince) = (0, nil) }
        return .write(leftOut: leftOut)
    }

    /// The end of the second after `second`.
    private static func summaryMs(after second: Int64) -> Int64 { (second + 2) * 1000 }

    /// The whole second `ms` is in, before 1970 too.
    private static func second(of ms: Int64) -> Int64 { ms >= 0 ? ms / 1000 : (ms + 1) / 1000 - 1 }
}
