import AppStore
import Foundation
import JSON
import Server
import Storage
import Threads

/// `revenuedot events list|resend`: the outbox and its webhook deliveries, read from storage.
package struct EventsCommand {
    package static let usage = """
        usage: revenuedot events list [--customer ID] [--app ID] [--status pending|delivered|dead|none] [--limit N]
                                      [--offset N] [--json] [--config FILE]
               revenuedot events resend EVENT_ID [--config FILE]

          list     newest first, with each event's delivery: pending (waiting or retrying),
                   delivered, dead (every retry failed), none (the app has no webhook);
                   --customer takes any id of a customer (its own or an alias) and lists all
                   of that customer's events, the same whichever id: those made under each of
                   its ids before they became one customer (an alias, a log-in) included
                   (CUSTOMER shows the id an event was made for); --limit rows (default 100,
                   at most 1000) after skipping --offset newest (the next page: --offset 100);
                   --json prints one object per line (the event as sent, plus its delivery)
          resend   makes an event due again at once (a dead letter, or a delivered event sent
                   again on purpose); a running server sends it within a moment
        """

    let subcommand: String
    let parsed: ParsedArguments
    static let statuses = ["pending", "delivered", "dead", "none"]

    package init(arguments: [String]) throws {
        guard let first = arguments.first, ["list", "resend"].contains(first) else {
            throw UsageError("expected list or resend, not " + (arguments.first.map { "\"\($0)\"" } ?? "nothing"))
        }
        subcommand = first
        parsed = try ParsedArguments(
            Array(arguments.dropFirst()), valueOptions: ["config", "customer", "app", "status", "limit", "offset"],
            flagOptions: ["json"])
        switch subcommand {
        case "resend": guard parsed.positionals.count == 1 else { throw UsageError("resend needs one event id") }
        default: guard parsed.positionals.isEmpty else { throw UsageError("list takes no arguments") }
        }
        try parsed.refuseUnused(
            except: subcommand == "list" ? ["customer", "app", "status", "limit", "offset", "json"] : [], by: subcommand)
        if let status = parsed.value("status"), !Self.statuses.contains(status) {
            throw UsageError("--status must be one of \(Self.statuses.joined(separator: ", "))")
        }
    }

    package func run() throws -> Int32 {
        guard subcommand == "resend" else {
            let (config, reader) = try CommandStore.openForReading(parsed)
            defer { reader.close() }
            return try list(reader, config: config)
        }
        let typed = parsed.positionals[0]
        let config = try ConfigLoader.load(path: parsed.value("config") ?? "revenuedot.json", readingExchangeRates: false)
        // Beside the server that has the SQLite database, it makes the event due (and wakes its
        // webhook worker); a second writer would only wait for its turn and wake nobody.
        if let listen = try CommandStore.servingAddress(config, for: "resend") {
            let reader = try CommandStore.reader(config)
            let event = try reader.event(named: typed)
            reader.close()
            guard let event, let app = config.app(event.appId) else {
                StandardStreams.error("revenuedot events resend: no event \(typed)\n")
                return 1
            }
            return try resendThroughServer(event.id, server: RunningServer(listen: listen, app: app, command: "resend"))
        }
        let store = try CommandStore.open(config, command: "events")
        defer { store.close() }
        return try resend(store, config: config, typed: typed)
    }

    /// `resend` through the running server (`POST /v1/events/{event_id}/resend`), said as without one.
    private func resendThroughServer(_ id: String, server: RunningServer) throws -> Int32 {
        let (status, answer, text) = try server.exchange(
            "/v1/events/\(RunningServer.pathComponent(id))/resend", .object([:]), timeoutSeconds: 30)
        switch (status, answer?["status"]?.stringValue) {
        case (200, "due"): return Self.said(.due, id: id)
        case (200, "sending"):
            let webhooks = answer?["webhooks"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return Self.said(.sending(webhooks: webhooks), id: id)
        case (404, _): return Self.said(.noEvent, id: id)
        case (409, _):
            StandardStreams.error("revenuedot events resend: \(RunningServer.message(answer, text: text))\n")
            return 1
        default:
            throw CommandError(
                "the running server at \(server.listen) answered \(status): \(RunningServer.message(answer, text: text))")
        }
    }

    /// Lists the events the options ask for. Those of an app since removed from the
    /// configuration can still be listed, with a warning; none at all under an app id nothing
    /// configured names is exit 1 (a typo, most likely).
    private func list(_ store: StoreReader, config: RevenueDotConfig) throws -> Int32 {
        var filter = EventFilter(
            customer: parsed.value("customer"), appId: parsed.value("app"), deliveryStatus: parsed.value("status"))
        let page = try PageOptions(parsed, maximumLimit: EventFilter.maximumLimit)
        if let limit = page.limit { filter.limit = Int64(limit) }
        if let offset = page.offset { filter.offset = Int64(offset) }
        let chosen = filter
        let rows = try store.events(chosen)
        if let app = parsed.value("app"), !config.apps.contains(where: { $0.id == app }) {
            // Whether any event is of it, whatever the other filters take.
            var any = EventFilter(customer: nil, appId: app, deliveryStatus: nil)
            any.limit = 1
            guard try !store.events(any).isEmpty else {
                StandardStreams.error("revenuedot events: no app \"\(app)\" is configured, and no event stored is of it\n")
                return 1
            }
            StandardStreams.error("revenuedot events: warning: no app \"\(app)\" is configured\n")
        }
        if parsed.flags.contains("json") {
            var output = ""
            for row in rows {
                var delivery: [String: JSONValue] = ["status": .string(row.deliveryStatus ?? "none")]
                delivery["attempts"] = .integer(row.attempts)
                delivery["nextAttemptAt"] = row.deliveryStatus == "pending" ? row.nextAttemptAtMs.map(JSONValue.integer) : nil
                delivery["deliveredAt"] = row.deliveredAtMs.map(JSONValue.integer)
                delivery["lastStatus"] = row.lastStatus.map(JSONValue.integer)
                delivery["lastError"] = row.lastError.map(JSONValue.string)
                delivery["webhook"] = row.webhook.map(JSONValue.string)
                let event = try WebhookBody.event(fromStored: row.json)
                let line = JSONValue.object([
                    "cursor": .integer(row.position), "event": event,
                    "delivery": .object(delivery),
                ])
                output += line.serialized() + "\n"
            }
            StandardStreams.out(output)
            return 0
        }
        // Customer ids are the app's own, of any length and any characters: shown whole, escaped.
        // An event has a row per webhook that takes it: named webhooks get a column saying which.
        let named = rows.contains { !($0.webhook ?? "").isEmpty }
        let header = ["CREATED", "TYPE", "CUSTOMER", "SEQ", "DELIVERY"] + (named ? ["WEBHOOK"] : []) + ["ID"]
        let cells = rows.map { row -> [String] in
            let status = row.deliveryStatus ?? "none"
            let delivery = row.attempts > 0 && status != "delivered" ? "\(status) (\(row.attempts))" : status
            let webhook = row.webhook.flatMap { $0.isEmpty ? nil : $0.escapingControls } ?? "-"
            return [
                UnixTime.iso8601(row.createdAtMs), row.type, (row.customer ?? "-").escapingControls,
                row.sequence.map(String.init) ?? "-", delivery,
            ] + (named ? [webhook] : []) + [row.id]
        }
        let columns = TextColumns(fitting: [header] + cells)
        var lines = [columns.line(header)]
        for (row, cells) in zip(rows, cells) {
            lines.append(columns.line(cells))
            if let error = row.lastError, row.deliveryStatus != "delivered" { lines.append("    last error: \(error)") }
        }
        if rows.isEmpty { lines.append("(no events)") }
        StandardStreams.out(lines.joined(separator: "\n") + "\n")
        return 0
    }

    private func resend(_ store: Store, config: RevenueDotConfig, typed: String) throws -> Int32 {
        let nowMs = UnixTime.nowMs
        // Only an app with a webhook has a worker to send it: anything else would wait forever.
        let event = try store.event(named: typed)
        let (id, appId) = (event?.id ?? typed, event?.appId)
        let webhooks = appId.flatMap { config.app($0) }?.webhooks ?? []
        if let appId, webhooks.isEmpty {
            StandardStreams.error("revenuedot events resend: app \"\(appId)\" has no webhook configured to send \(id) to\n")
            return 1
        }
        return Self.said(try store.resendEvent(id, webhooks: webhooks.map(\.route), nowMs: nowMs), id: id)
    }

    /// Says what `resend` did; its exit status.
    private static func said(_ resent: Deliveries.Resent, id: String) -> Int32 {
        switch resent {
        case .noEvent:
            StandardStreams.error("revenuedot events resend: no event \(id)\n")
            return 1
        case .due:
            StandardStreams.out("event \(id) is due for delivery again\n")
        case .sending(let busy):
            let named = busy.map { $0.isEmpty ? "the webhook" : "webhook \"\($0)\"" }.joined(separator: ", ")
            StandardStreams.out(
                "event \(id) is due for delivery again; a node is sending it to \(named) right now, and that attempt is left to finish\n"
            )
        }
        return 0
    }
}
