import Threads

extension Store {
    /// Makes event `id` due again at once for `webhooks` (`Deliveries.resend`), its claims judged
    /// on the claim clock (`WriteTransaction.claimClockMs`), as claims are taken.
    public func resendEvent(_ id: String, webhooks: [WebhookRoute], nowMs: Int64) throws(StoreError) -> Deliveries.Resent {
        let outcome = Locked(Deliveries.Resent.noEvent)
        try write { transaction in
            let resent = try Deliveries.resend(
                eventId: id, webhooks: webhooks, at: try transaction.claimClockMs(else: nowMs), in: transaction)
            outcome.withLock { $0 = resent }
        }
        return outcome.value
    }

    /// `resendEvent`, answered through `completion` once the write commits (for a server's
    /// handler, which does not wait on the writer).
    public func resendEvent(
        _ id: String, webhooks: [WebhookRoute], nowMs: Int64,
        completion: @escaping @Sendable (Result<Deliveries.Resent, StoreError>) -> Void
    ) {
        let outcome = Locked(Deliveries.Resent.noEvent)
        write(
            { transaction in
                let resent = try Deliveries.resend(
                    eventId: id, webhooks: webhooks, at: try transaction.claimClockMs(else: nowMs), in: transaction)
                outcome.withLock { $0 = resent }
            },
            completion: { result in completion(result.map { outcome.value }) })
    }
}
