import Foundation
import Subscriptions

extension LedgerInputs {
    /// What applying `input` at `atMs` would do to the stored state, read from `rows` and
    /// changing nothing: the reducer's effects on the slice the input touches. For questions a
    /// client asks before it acts, such as whether `restoreBehavior` would keep a purchase
    /// with another customer (`Ledger.Effect.linkRefused`).
    ///
    /// - Parameter anonymousIds: the ids the database gives purchases nobody has claimed
    ///   (`Store.anonymousIds`), which the link rules read.
    public static func preview(
        _ input: Ledger.Input, app: LedgerApp, anonymousIds: AnonymousIds, atMs: Int64, from rows: some RowReader
    ) throws -> [Ledger.Effect] {
        var app = app
        app.configuration.anonymousIds = anonymousIds
        var ledger = try LedgerRows.slice(for: input, app: app, from: rows).ledger
        return ledger.apply(input, at: Date(timeIntervalSince1970: Double(atMs) / 1000))
    }
}
