import Storage
import Testing

@testable import Server
@testable import Tools

@Suite struct HistogramTests {
    /// Each label set keeps its own cumulative buckets, sum and count, however many times it is
    /// observed (observations change the series in place).
    @Test func seriesCountCumulativelyPerLabelSet() {
        let histogram = Histogram(bounds: [1, 10])
        for value in [0.5, 1, 5, 50] { histogram.observe(value, labels: #"route="/a""#) }
        histogram.observe(20, labels: #"route="/b""#)

        #expect(
            histogram.render(name: "x") == [
                #"x_bucket{route="/a",le="1"} 2"#, #"x_bucket{route="/a",le="10"} 3"#, #"x_bucket{route="/a",le="+Inf"} 4"#,
                #"x_sum{route="/a"} 56.5"#, #"x_count{route="/a"} 4"#,
                #"x_bucket{route="/b",le="1"} 0"#, #"x_bucket{route="/b",le="10"} 0"#, #"x_bucket{route="/b",le="+Inf"} 1"#,
                #"x_sum{route="/b"} 20"#, #"x_count{route="/b"} 1"#,
            ])
    }
}

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
