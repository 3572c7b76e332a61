import Storage

extension WebhookKey {
    /// Every webhook `config` has, app by app.
    package static func configured(in config: RevenueDotConfig) -> [WebhookKey] {
        config.apps.flatMap { app in app.webhooks.map { WebhookKey(appId: app.id, webhook: $0.id) } }
    }
}

extension Metrics {
    /// The delivery backlog gauges, a series per app and webhook: each configured one (0 when
    /// nothing waits) and any other that has deliveries left (a webhook renamed or removed,
    /// whose pending deliveries no worker sends: also summed in `unserved_pending`).
    static func backlogLines(_ outbox: OutboxStatus, configured: [WebhookKey]) -> [String] {
        var backlogs = Dictionary(
            configured.map { ($0, WebhookBacklog(appId: $0.appId, webhook: $0.webhook)) }, uniquingKeysWith: { first, _ in first }
        )
        for backlog in outbox.webhooks { backlogs[backlog.key] = backlog }
        let ordered = backlogs.sorted { ($0.key.appId, $0.key.webhook) < ($1.key.appId, $1.key.webhook) }
        var lines: [String] = []
        func gauge(_ name: String, _ help: String, _ value: (WebhookBacklog) -> String) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) gauge"]
            for (key, backlog) in ordered {
                lines.append("\(name){app=\"\(escape(key.appId))\",webhook=\"\(escape(key.webhook))\"} \(value(backlog))")
            }
        }
        gauge("revenuedot_webhook_pending", "Events waiting for delivery, by app and webhook.") { "\($0.pending)" }
        gauge("revenuedot_webhook_retry_backlog", "Pending events that failed at least once, by app and webhook.") {
            "\($0.retrying)"
        }
        gauge("revenuedot_webhook_dead", "Events dead-lettered after every retry, by app and webhook.") { "\($0.dead)" }
        gauge(
            "revenuedot_webhook_oldest_pending_age_seconds", "Age of the oldest pending event, by app and webhook (0: none)."
        ) { "\($0.oldestPendingAgeSeconds)" }
        let unserved = outbox.unserved(by: Set(configured)).reduce(0) { $0 + $1.pending }
        lines += [
            "# HELP revenuedot_webhook_unserved_pending Pending events of webhooks no configured worker sends (renamed or removed): they wait until a webhook of that app and name is configured again.",
            "# TYPE revenuedot_webhook_unserved_pending gauge", "revenuedot_webhook_unserved_pending \(unserved)",
        ]
        return lines
    }
}
