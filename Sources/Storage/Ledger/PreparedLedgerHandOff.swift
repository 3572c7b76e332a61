import Subscriptions
import Threads

/// The ledger's hand-off for the rest of one write transaction, on an engine where each
/// statement costs a round trip: the first rows of every new notification's slice
/// (`LedgerRows.firstRound`) were read together, before the first was applied, instead of in
/// one round trip each between one notification's writes and the next one's reduction.
///
/// A notification uses its rows only while nothing applied before it in this transaction may
/// have written them (`LedgerTouch.leavesFirstRoundOf`); otherwise it reads them again at its
/// turn. The writer drops this hand-off as soon as caller work writes in the transaction.
final class PreparedLedgerHandOff: NotificationHandOff {
    /// A notification's input and the answers to its slice's first statements.
    struct ReadAhead: Sendable {
        var input: Ledger.Input
        var answers: [[[SQLValue]]]
    }

    private struct State {
        var ahead: [String: ReadAhead]
        var touched = LedgerTouch()
        var used = 0
    }

    private let base: LedgerHandOff
    private let state: Locked<State>

    init(base: LedgerHandOff, ahead: [String: ReadAhead]) {
        self.base = base
        state = Locked(State(ahead: ahead))
    }

    func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        let (readAhead, touched) = state.withLock { ($0.ahead.removeValue(forKey: record.notificationUUID), $0.touched) }
        let firstRound = readAhead.flatMap { touched.leavesFirstRoundOf($0.input) ? $0.answers : nil }
        let (outcome, touch) = try base.apply(record, readAhead: readAhead, firstRound: firstRound, in: transaction)
        state.withLock {
            if let touch { $0.touched.formUnion(touch) }
            if firstRound != nil { $0.used += 1 }
        }
        return outcome
    }

    /// How many notifications used the rows read ahead for them.
    var readAheadsUsed: Int { state.withLock { $0.used } }
}
