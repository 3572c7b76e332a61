extension Deliveries {
    /// Where several nodes share one database: the deliveries due for `node` (as `due` finds
    /// them, deliveries other nodes claimed being in flight there), each claimed for `node`
    /// until `nowMs + leaseMs` in the same transaction, so no other node sends it meanwhile.
    /// Recording the outcome (`record`) ends the claim; a node that dies leaves its claims to the
    /// others once their lease is over (at least once: an event is sent twice only then).
    ///
    /// Runs in a write transaction, which on PostgreSQL holds the cluster-wide write lock: two
    /// nodes never claim at once.
    public static func claimDue(
        appId: String, webhook: String = "", node: String, nowMs: Int64, leaseMs: Int64, limit: Int,
        holdMs: Int64 = .max, inFlight: Set<String>, in transaction: WriteTransaction
    ) throws -> [DueDelivery] {
        let due = try due(
            appId: appId, webhook: webhook, nowMs: nowMs, limit: limit, holdMs: holdMs, inFlight: inFlight, node: node,
            from: transaction)
        var claimed: [DueDelivery] = []
        for var delivery in due {
            delivery.claimedBy = node
            claimed.append(delivery)
            try transaction.write(
                "UPDATE deliveries SET claimed_by = ?, claimed_until = ? WHERE event_id = ? AND webhook = ?",
                [.text(node), .integer(nowMs + leaseMs), .text(delivery.eventId), .text(delivery.webhook)])
        }
        return claimed
    }
}
