import Subscriptions

/// The single place a stored notification reaches the subscription logic: inside the storage
/// transaction that holds it, the reducer applies it to the purchase's slice of state, and the
/// new state, its events and its timers commit together with the notification.
public struct LedgerHandOff: NotificationHandOff {
    /// The app a notification belongs to, by id, as it is configured now; nil for none.
    public let app: @Sendable (String) -> LedgerApp?
    /// What the store keeps decoded (`LedgerCache`), shared with the other inputs applied to it.
    public let cache: LedgerCache?

    public init(app: @escaping @Sendable (String) -> LedgerApp?, cache: LedgerCache? = nil) {
        self.app = app
        self.cache = cache
    }

    public func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        try apply(record, in: transaction).state
    }

    /// Reads the first rows of every new notification's slice in one round trip, where the
    /// engine sends statements together and there are two or more (`PreparedLedgerHandOff`).
    public func prepared(for records: [NotificationRecord], in transaction: WriteTransaction) throws
        -> any NotificationHandOff
    {
        guard transaction.sendsQueriesTogether else { return self }
        var inputs: [(uuid: String, input: Ledger.Input, round: LedgerRows.FirstRound)] = []
        for record in records where record.state == .received {
            // One that cannot be read fails at its turn, as it would have.
            guard let app = app(record.appId), let facts = try? record.verifiedFacts() else { continue }
            let input = Ledger.Input.notificationReceived(facts)
            inputs.append((record.notificationUUID, input, LedgerRows.firstRound(for: input, app: app, together: true)))
        }
        guard inputs.count > 1 else { return self }
        var answers = try transaction.queries(inputs.flatMap(\.round.statements))[...]
        var ahead: [String: PreparedLedgerHandOff.ReadAhead] = [:]
        for (uuid, input, round) in inputs {
            ahead[uuid] = .init(input: input, answers: Array(answers.prefix(round.statements.count)))
            answers = answers.dropFirst(round.statements.count)
        }
        return PreparedLedgerHandOff(base: self, ahead: ahead)
    }

    /// Applies `record` (its input read ahead, with the first rows of its slice, or none) and
    /// logs it; the notification's state and the rows it may have written.
    func apply(
        _ record: NotificationRecord, readAhead: PreparedLedgerHandOff.ReadAhead? = nil, firstRound: [[[SQLValue]]]? = nil,
        in transaction: WriteTransaction
    ) throws -> (state: NotificationState, touch: LedgerTouch?) {
        // Held notifications (another bundle or environment) wait for a configuration fix.
        guard record.state == .received else { return (record.state, nil) }
        // Its app left the configuration (a reload) after it was verified: stored failed, it is
        // applied at the next start or reload that has the app again.
        guard let app = app(record.appId) else {
            throw StoreError(.invalid, "app \"\(record.appId)\" is no longer configured")
        }
        let input = try readAhead?.input ?? .notificationReceived(record.verifiedFacts())
        let touch = try LedgerInputs.apply(
            input, app: app, atMs: record.receivedAt, cache: cache, firstRound: firstRound, in: transaction
        ).touch
        try LedgerInputs.log(
            kind: .notification, ref: record.notificationUUID, appId: app.id, atMs: record.receivedAt, in: transaction)
        return (.applied, touch)
    }
}
