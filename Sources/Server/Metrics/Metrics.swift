import AppStore
import HTTP
import Storage
import Threads

/// Everything `GET /metrics` reports, in the Prometheus text format.
///
/// https://prometheus.io/docs/instrumenting/exposition_formats/
package final class Metrics: Sendable {
    /// The node whose figures these are, named in `revenuedot_build_info` and `/health`.
    package let node: String

    package init(node: String = "") { self.node = node }

    package let notificationsReceived = Counter()
    package let notificationsStored = Counter()
    package let notificationsDuplicate = Counter()
    package let notificationsHeld = Counter()
    package let notificationsRejected = LabeledCounter(
        labels: Metrics.refusalNames.values.sorted() + ["busy", "unknownApp"]
            + VerificationError.Status.allCases.map(\.rawValue))
    /// Events made with a price in a currency no exchange rate converts: their `price` is null.
    package let eventsWithoutUSDPrice = Counter()
    package let storageFailures = Counter()
    package let rejectLogFailures = Counter()
    package let requestSeconds = Histogram(bounds: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
    /// Requests answered, by method, route and status code (`method="GET",route="/x",code="200"`).
    package let httpRequests = LabeledCounter()
    package let commitBatchSize = Histogram(bounds: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512], labels: [""])
    /// Each `fdatasync` of the WAL, which every answer of the commits it covers waits for.
    package let storageFlushSeconds = Histogram(
        bounds: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], labels: [""])
    package let openConnections = Gauge()
    package let connectionsCutOff = Counter()
    /// Webhook delivery attempts by outcome: delivered, retry, dead, unrecorded; and lapsed:
    /// claimed deliveries not sent, the claim too old by then (claimed again, then sent).
    package let deliveries = LabeledCounter(labels: ["delivered", "retry", "dead", "unrecorded", "lapsed"])
    /// From the commit of an event (the notification answered 200) to its webhook answered 2xx.
    package let deliveryLatency = Histogram(
        bounds: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600], labels: [""])
    /// Timers the scheduler fired, and those that failed to (retried a minute later).
    package let timersFired = Counter()
    package let timersFailed = Counter()
    /// Notifications a backfill listed, by what ingest made of them: new, already_stored, refused.
    package let backfillNotifications = LabeledCounter(labels: ["new", "already_stored", "refused"])
    /// Backfill runs (per app and environment), by outcome: completed, stopped (Apple failed or
    /// refused, or its pages ended early), failed (no client for the app, or storage failed).
    package let backfillRuns = LabeledCounter(labels: ["completed", "stopped", "failed"])
    package let backfillPages = Counter()
    /// Answers to Apple's consumption requests, by outcome: sent, retry, failed, expired, skipped.
    package let consumptionAnswers = LabeledCounter(labels: ["sent", "retry", "failed", "expired", "skipped"])
    /// Differences scheduled reconciliation found between stored state and Apple's, by field.
    package let reconcileDrifts = LabeledCounter()
    /// The server's calls to the App Store Server API, each attempt by endpoint and status
    /// (`endpoint="notification-history",status="200"`; `none`: no answer; `held`: not sent,
    /// a 429 holding the endpoint back).
    package let appleAPIRequests = LabeledCounter()
    /// Passes of a background loop that failed (storage), by loop: webhook_pick (a webhook
    /// worker reading or claiming due deliveries), timers (the scheduler reading due timers),
    /// contacts (writing customers' last-seen times).
    package let backgroundFailures = LabeledCounter(labels: ["webhook_pick", "timers", "contacts"])
    /// Subscriptions scheduled reconciliation checked, by outcome: in_line, applied, not_applied, failed.
    package let reconciled = LabeledCounter(labels: ["in_line", "applied", "not_applied", "failed"])

    /// The exposition text of `/metrics`; `outbox` adds the delivery backlog read from storage
    /// (a series for each of the configured `webhooks`, 0 when nothing waits),
    /// `heldBacklog` the notifications stored held. `storageRead` says whether this scrape's
    /// reads of storage succeeded: a gauge whose read failed is left out, and
    /// `revenuedot_storage_readable 0` says why it is missing.
    package func render(
        outbox: OutboxStatus? = nil, webhooks: [WebhookKey] = [], heldBacklog: Int? = nil, timers: TimerBacklog? = nil,
        storageRead: Bool? = nil, storageFailing: Bool? = nil
    ) -> String {
        var lines: [String] = [
            "# HELP revenuedot_build_info The running build (always 1): its version, commit and node.",
            "# TYPE revenuedot_build_info gauge",
            "revenuedot_build_info{version=\"\(Self.escape(RevenueDotVersion.semantic))\",commit=\"\(Self.escape(RevenueDotVersion.commit))\""
                + ",node=\"\(Self.escape(node))\"} 1",
        ]
        func counter(_ name: String, _ help: String, _ value: Int) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) counter", "\(name) \(value)"]
        }
        counter(
            "revenuedot_events_without_usd_price_total",
            "Events made with a price in a currency for which exchangeRatesFile gives no rate (or with no "
                + "exchangeRatesFile): price is null.",
            eventsWithoutUSDPrice.count)
        counter(
            "revenuedot_notifications_received_total",
            "Notification POSTs, whatever their app id: each ends stored, duplicate, rejected, or answered 503 "
                + "because storage could not commit (revenuedot_storage_failures_total).",
            notificationsReceived.count)
        counter(
            "revenuedot_notifications_stored_total", "Notifications committed to storage (held included).",
            notificationsStored.count)
        counter(
            "revenuedot_notifications_duplicate_total", "Notifications already stored under their notificationUUID.",
            notificationsDuplicate.count)
        counter(
            "revenuedot_notifications_held_total", "Validly signed notifications for another bundle or environment.",
            notificationsHeld.count)
        counter(
            "revenuedot_storage_failures_total", "Notifications answered 503 because storage could not commit.",
            storageFailures.count)
        counter(
            "revenuedot_reject_log_write_failures_total",
            "Writes of the reject log that failed (their entries are kept and tried again).", rejectLogFailures.count)
        // A counter whose keys are whole label sets (`method="GET",route="/x",code="200"`).
        func series(_ name: String, _ help: String, _ counter: LabeledCounter, label: (String) -> String = { $0 }) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) counter"]
            for (key, count) in counter.counts.sorted(by: { $0.key < $1.key }) { lines.append("\(name){\(label(key))} \(count)") }
        }
        func labeled(_ name: String, _ help: String, _ label: String, _ counter: LabeledCounter) {
            series(name, help, counter) { "\(label)=\"\(Self.escape($0))\"" }
        }
        labeled(
            "revenuedot_notifications_rejected_total",
            "Notification POSTs refused, by status: badRequest (400), unknownApp (404, no app has the URL's id), payloadTooLarge (413), expectationFailed (417), notImplemented (501), serviceUnavailable (503, bodies over the memory budget), busy (503, the verifiers' queue full), or the verification status (401).",
            "status",
            notificationsRejected)
        series("revenuedot_http_requests_total", "Requests answered, by method, route and status code.", httpRequests)
        lines += [
            "# HELP revenuedot_http_request_duration_seconds Time from request to response, by route.",
            "# TYPE revenuedot_http_request_duration_seconds histogram",
        ]
        lines += requestSeconds.render(name: "revenuedot_http_request_duration_seconds")
        lines += [
            "# HELP revenuedot_storage_commit_batch_size Writes per group commit: notifications, posted transactions, and the others that share the writer (reject log entries, timers, webhook outcomes).",
            "# TYPE revenuedot_storage_commit_batch_size histogram",
        ]
        lines += commitBatchSize.render(name: "revenuedot_storage_commit_batch_size")
        lines += [
            "# HELP revenuedot_storage_flush_duration_seconds Each fdatasync of the WAL: the answers of every commit it covers wait for it, so a disk that stalls holds them all (and Apple may deliver again).",
            "# TYPE revenuedot_storage_flush_duration_seconds histogram",
        ]
        lines += storageFlushSeconds.render(name: "revenuedot_storage_flush_duration_seconds")
        lines += [
            "# HELP revenuedot_http_open_connections Open HTTP connections.", "# TYPE revenuedot_http_open_connections gauge",
            "revenuedot_http_open_connections \(openConnections.current)",
            "# HELP revenuedot_http_connections_cut_off_total Connections cut off: no whole head within http.headerTimeoutSeconds or request within http.requestTimeoutSeconds, or a chunked body far past the limit.",
            "# TYPE revenuedot_http_connections_cut_off_total counter",
            "revenuedot_http_connections_cut_off_total \(connectionsCutOff.count)",
        ]
        labeled(
            "revenuedot_webhook_deliveries_total",
            "Webhook delivery attempts, by outcome (unrecorded: an attempt whose outcome storage could not commit at "
                + "first; it is committed again until it can, and counted under that outcome then; lapsed: a claimed "
                + "delivery not sent, its claim too old by then, claimed again before it is sent).", "outcome", deliveries)
        lines += [
            "# HELP revenuedot_webhook_delivery_latency_seconds From the event's commit to its webhook answered 2xx.",
            "# TYPE revenuedot_webhook_delivery_latency_seconds histogram",
        ]
        lines += deliveryLatency.render(name: "revenuedot_webhook_delivery_latency_seconds")
        counter("revenuedot_timers_fired_total", "Timers the scheduler fed to the reducer.", timersFired.count)
        counter("revenuedot_timers_failed_total", "Timers that failed to fire (tried again a minute later).", timersFailed.count)
        labeled(
            "revenuedot_background_failures_total",
            "Passes of a background loop that failed (storage), by task; the next pass tries again.", "task",
            backgroundFailures)
        labeled(
            "revenuedot_backfill_notifications_total",
            "Notifications automatic backfill read from Apple's history, by what ingest made of them.", "result",
            backfillNotifications)
        labeled("revenuedot_backfill_runs_total", "Automatic backfill runs, by outcome.", "outcome", backfillRuns)
        counter("revenuedot_backfill_pages_total", "Pages of notification history automatic backfill read.", backfillPages.count)
        labeled(
            "revenuedot_reconcile_drifts_total", "Differences reconciliation found with Apple, by field.", "field",
            reconcileDrifts)
        labeled(
            "revenuedot_reconciled_subscriptions_total", "Subscriptions reconciliation checked, by outcome.", "outcome",
            reconciled)
        labeled(
            "revenuedot_consumption_answers_total",
            "Answers to Apple's consumption requests, by outcome (retry: an attempt to be made again).", "outcome",
            consumptionAnswers)
        series(
            "revenuedot_apple_api_requests_total",
            "Attempts at calls to the App Store Server API, by endpoint and status (none: no answer; held: not sent, "
                + "a 429 holds the endpoint back).", appleAPIRequests)
        if let heldBacklog {
            lines += [
                "# HELP revenuedot_notifications_held_backlog Notifications stored held, waiting for a configuration that accepts them (applied at the next start that does).",
                "# TYPE revenuedot_notifications_held_backlog gauge", "revenuedot_notifications_held_backlog \(heldBacklog)",
            ]
        }
        if let timers {
            lines += [
                "# HELP revenuedot_timers_due Timers due and not fired yet: the scheduler fires them every scheduler.intervalMs, and after a start once a first backfill completed (two minutes at most).",
                "# TYPE revenuedot_timers_due gauge", "revenuedot_timers_due \(timers.due)",
                "# HELP revenuedot_timers_oldest_due_age_seconds How long ago the oldest timer not fired yet came due (0: none); a timer that fails to fire is tried a minute later, so read it with revenuedot_timers_failed_total.",
                "# TYPE revenuedot_timers_oldest_due_age_seconds gauge",
                "revenuedot_timers_oldest_due_age_seconds \(timers.oldestDueAgeSeconds)",
            ]
        }
        if let storageFailing {
            lines += [
                "# HELP revenuedot_storage_failing Whether storage failed at the last commit or health check (1 until one succeeds): notifications are answered 503 meanwhile.",
                "# TYPE revenuedot_storage_failing gauge", "revenuedot_storage_failing \(storageFailing ? 1 : 0)",
            ]
        }
        if let storageRead {
            lines += [
                "# HELP revenuedot_storage_readable Whether this scrape could read storage (0: the gauges read from it are missing).",
                "# TYPE revenuedot_storage_readable gauge", "revenuedot_storage_readable \(storageRead ? 1 : 0)",
            ]
        }
        if let outbox { lines += Self.backlogLines(outbox, configured: webhooks) }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Metrics {
    /// One `fdatasync` of the WAL took `duration`.
    package func storageFlushed(_ duration: Duration) {
        storageFlushSeconds.observe(duration.inSeconds)
    }
}

extension Metrics: HTTPServerObserver {
    package func requestFinished(method: String, route: String, status: Int, seconds: Double) {
        let labels = "method=\"\(Self.methodLabel(method))\",route=\"\(Self.escape(route))\""
        requestSeconds.observe(seconds, labels: labels)
        httpRequests.increment(label: labels + ",code=\"\(status)\"")
    }

    /// The standard methods by name, any other as `other`: the method is whatever the client
    /// sent, and a series per made-up method would let anyone grow `/metrics` and the memory
    /// behind it without end.
    package static func methodLabel(_ method: String) -> String {
        standardMethods.contains(method) ? method : "other"
    }

    private static let standardMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE",
    ]

    package func connectionOpened() { openConnections.add(1) }
    package func connectionClosed() { openConnections.add(-1) }
    package func connectionCutOff() { connectionsCutOff.increment() }

    /// A notification POST the server answered before ingest saw it counts as rejected, by the
    /// name of its status (ingest counts the ones it answers itself).
    package func requestRefused(method: String, route: String, parameters: [String: String], status: Int) {
        guard route == Routes.notificationRoute else { return }
        // Received too, so that every POST counted received ends counted once: stored,
        // duplicate or rejected. (Refused before ingest, its app was not looked at.)
        notificationsReceived.increment()
        notificationsRejected.increment(label: Self.refusalNames[status] ?? "status\(status)")
    }

    static let refusalNames = [
        400: "badRequest", 413: "payloadTooLarge", 417: "expectationFailed", 501: "notImplemented",
        503: "serviceUnavailable",
    ]

    /// Escapes a label value as the text format requires.
    /// Runs on every request: label values (route patterns) rarely need escaping, so check first.
    package static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 0x0A }) else {
            return value
        }
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
