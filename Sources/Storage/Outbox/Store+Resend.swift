import Threads

extension Store {
    /// Makes event `id` due again at once for `webhooks` (`Deliveries.resend`), its claims judged
    /// on the claim clock (`WriteTransaction.claimClockMs`), as claims are taken.
    public func resendEvent(_ id: String, webhooks: [WebhookRoute], nowMs: Int64) throws(StoreError) -> Deliveries.Resent {
        let (work, outcome) = Self.resend(id, webhooks: webhooks, nowMs: nowMs)
        try write(work)
        return outcome.value
    }

    /// `resendEvent`, answered through `completion` once the write commits (for a server's
    /// handler, which does not wait on the writer).
    public func resendEvent(
        _ id: String, webhooks: [WebhookRoute], nowMs: Int64,
        completion: @escaping @Sendable (Result<Deliveries.Resent, StoreError>) -> Void
    ) {
        let (work, outcome) = Self.resend(id, webhooks: webhooks, nowMs: nowMs)
        write(work, completion: { result in completion(result.map { outcome.value }) })
    }

    /// The write both make, and where it leaves what it did.
    private static func resend(_ id: String, webhooks: [WebhookRoute], nowMs: Int64) -> (
        @Sendable (WriteTransaction) throws -> Void, Locked<Deliveries.Resent>
    ) {
        let outcome = Locked(Deliveries.Resent.noEvent)
        let work: @Sendable (WriteTransaction) throws -> Void = { transaction in
            let resent = try Deliveries.resend(
                eventId: id, webhooks: webhooks, at: try transaction.claimClockMs(else: nowMs), in: transaction)
            outcome.withLock { $0 = resent }
        }
        return (work, outcome)
    }
}
