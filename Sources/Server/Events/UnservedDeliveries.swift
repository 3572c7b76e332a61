import Storage
import Threads

/// Deliveries left waiting for a webhook the configuration no longer has (renamed or removed):
/// no worker sends them. Said at each start and reload, one warning per app and webhook, so an
/// operator who renamed a webhook learns what it left behind.
enum UnservedDeliveries {
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
                    + "configure it again to send them",
                [
                    ("app", .text(backlog.appId)), ("webhook", .text(backlog.webhook)),
                    ("pending", .integer(Int64(backlog.pending))),
                ])
        }
    }
}
