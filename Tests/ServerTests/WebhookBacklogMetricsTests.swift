import Storage
import Testing

@testable import Server

@Suite struct WebhookBacklogMetricsTests {
    /// Every configured webhook has its series (0 when nothing waits); a webhook renamed or
    /// removed keeps one while its deliveries are left, and its pending ones count as unserved.
    @Test func configuredWebhooksShowZeroAndLeftBehindOnesAreUnserved() {
        let outbox = OutboxStatus(webhooks: [
            WebhookBacklog(appId: "demo", webhook: "", dead: 1),
            WebhookBacklog(appId: "demo", webhook: "old", pending: 2, retrying: 1, oldestPendingAgeSeconds: 8.5),
        ])
        let lines = Metrics.backlogLines(
            outbox, configured: [WebhookKey(appId: "demo", webhook: ""), WebhookKey(appId: "other", webhook: "crm")])
        let samples = lines.filter { !$0.hasPrefix("#") }
        #expect(
            samples == [
                #"revenuedot_webhook_pending{app="demo",webhook=""} 0"#,
                #"revenuedot_webhook_pending{app="demo",webhook="old"} 2"#,
                #"revenuedot_webhook_pending{app="other",webhook="crm"} 0"#,
                #"revenuedot_webhook_retry_backlog{app="demo",webhook=""} 0"#,
                #"revenuedot_webhook_retry_backlog{app="demo",webhook="old"} 1"#,
                #"revenuedot_webhook_retry_backlog{app="other",webhook="crm"} 0"#,
                #"revenuedot_webhook_dead{app="demo",webhook=""} 1"#,
                #"revenuedot_webhook_dead{app="demo",webhook="old"} 0"#,
                #"revenuedot_webhook_dead{app="other",webhook="crm"} 0"#,
                #"revenuedot_webhook_oldest_pending_age_seconds{app="demo",webhook=""} 0.0"#,
                #"revenuedot_webhook_oldest_pending_age_seconds{app="demo",webhook="old"} 8.5"#,
                #"revenuedot_webhook_oldest_pending_age_seconds{app="other",webhook="crm"} 0.0"#,
                "revenuedot_webhook_unserved_pending 2",
            ])
        #expect(lines.filter { $0.hasPrefix("# TYPE") }.allSatisfy { $0.hasSuffix(" gauge") })
    }
}
