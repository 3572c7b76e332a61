import Storage
import Threads

/// Deliveries kept under a webhook name the configuration no longer has (renamed or removed).
/// At each start and reload, those of the names it retires (`previousNames`,
/// `removedWebhooks`) go to the webhook renamed from them or are dropped, with a
/// `webhook.retired` line; any others are left waiting, one `webhook.unserved` warning per app
/// and webhook, so an operator who renamed a webhook learns what it left behind.
enum UnservedDeliveries {
    /// Retires what `config` says to, then warns of what is left unserved.
    static func settle(config: RevenueDotConfig, store: Store, log: Log) {
        retire(config: config, store: store, log: log)
        warn(config: config, store: store, log: log)
    }

    /// Gives the deliveries of each name `config` retires to its successor, or drops them. A
    /// failed write is logged and leaves them where they were, for the next start or reload.
    static func retire(config: RevenueDotConfig, store: Store, log: Log) {
        let retired = config.apps.flatMap(\.retiredWebhooks)
        let outcomes: [Deliveries.Retirement]
        do {
            outcomes = try store.retireWebhooks(retired, nowMs: UnixTime.nowMs)
        } catch {
            log.error(
                "webhook.retire_failed",
                "the deliveries of retired webhook names stay where they are until the next start or reload",
                [("error", .text("\(error)"))])
            return
        }
        for (webhook, outcome) in zip(retired, outcomes) where outcome.moved > 0 || outcome.dropped > 0 {
            var fields: [(String, LogValue)] = [("app", .text(webhook.appId)), ("webhook", .text(webhook.name))]
            if let successor = webhook.successor { fields.append(("to", .text(successor.id))) }
            fields += [("moved", .integer(Int64(outcome.moved))), ("dropped", .integer(Int64(outcome.dropped)))]
            log.info(
                "webhook.retired",
                webhook.successor == nil
                    ? "the deliveries of a removed webhook were dropped"
                    : "the deliveries of a renamed webhook are now its new name's", fields)
        }
    }

    /// Logs `webhook.unserved` for each app and webhook of `store` with pending deliveries that
    /// `config` does not serve. A failed read says nothing: storage faults have their own lines.
    static func warn(config: RevenueDotConfig, store: Store, log: Log) {
        let nowMs = UnixTime.nowMs
        guard let status = try? store.read({ (rows) throws(StoreError) in try Deliveries.status(nowMs: nowMs, from: rows) })
        else { return }
        for backlog in status.unserved(by: Set(WebhookKey.configured(in: config))) {
            log.warning(
                "webhook.unserved",
                "deliveries wait for a webhook this configuration does not have (renamed or removed): "
                    + "configure it again, or retire its name (previousNames, removedWebhooks)",
                [
                    ("app", .text(backlog.appId)), ("webhook", .text(backlog.webhook)),
                    ("pending", .integer(Int64(backlog.pending))),
                ])
        }
    }
}
