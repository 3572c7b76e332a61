import AppStore
import Foundation
import HTTP
import JSON
import Storage
import Threads

/// `GET /v1/events?after=<cursor>&limit=<n>`: the event stream, for consumers who poll instead of
/// receiving webhooks (secret key only).
///
/// Events come in commit order as the webhook envelopes (`{"api_version", "event"}`), each with
/// its `cursor`; `next_cursor` is the cursor to pass as `after` next time (unchanged when there
/// is nothing new), so a consumer never misses or repeats an event. A cursor past every position
/// given is refused (400), not waited on.
package struct EventsAPI: Sendable {
    package let keys: APIKeys
    package let store: Store
    package static let defaultLimit = 100
    package static let maxLimit = 1000

    package func events(_ request: HTTPRequest) -> HTTPResponse {
        guard let (app, access) = keys.authenticate(request), access == .secret else { return APIKeys.secretKeyRequired }
        // Which of two cursors a client meant is not for the server to guess.
        for name in ["after", "limit"] where request.queryValues(name).count > 1 {
            return .error(status: 400, code: "bad_request", message: "\(name) is given more than once")
        }
        let after = request.query["after"].map { Int64($0) } ?? 0
        let limit = request.query["limit"].map { Int($0) } ?? Self.defaultLimit
        guard let after, after >= 0 else {
            return .error(status: 400, code: "bad_request", message: "after must be a cursor (a whole number, 0 or more)")
        }
        guard let limit, (1...Self.maxLimit).contains(limit) else {
            return .error(status: 400, code: "bad_request", message: "limit must be between 1 and \(Self.maxLimit)")
        }
        do {
            // On SQLite, only events on disk: a reader sees a commit before it is, and a power
            // loss would take back an event a consumer had read.
            let onDisk = store.durableEvents?.position ?? .max
            let (rows, highest) = try store.read { (rows) throws(StoreError) in
                let page = try EventRows.page(appId: app.id, after: after, upTo: onDisk, limit: limit, from: rows)
                return (page, page.isEmpty && after > 0 ? try EventRows.highestPosition(from: rows) : after)
            }
            // A cursor past every position would wait past events to come: another database's
            // (or, from a build that listed events before they were on disk, one whose newest
            // events a power loss took back: Apple sends those notifications again).
            guard after <= highest else {
                return .error(
                    status: 400, code: "cursor_ahead",
                    message: "after \(after) is past the newest event position, \(highest): go on from \(highest) if this "
                        + "database gave it (a power loss took back events not yet on disk), else from 0")
            }
            var items: [JSONValue] = []
            var next = after
            for (position, json) in rows {
                // A row that does not decode is still listed (with an error), so the cursor moves past it.
                if let json, case .object(var envelope)? = try? WebhookBody.envelope(fromStored: json) {
                    envelope["cursor"] = .integer(position)
                    items.append(.object(envelope))
                } else {
                    items.append(.object(["cursor": .integer(position), "error": .string("the stored event does not decode")]))
                }
                next = position
            }
            let body = JSONValue.object(["events": .array(items), "next_cursor": .integer(next)])
            return .json(Data(body.serialized().utf8))
        } catch {
            return .storageFailure(error, access: access)
        }
    }

    /// `POST /v1/events/{event_id}/resend` (secret key): makes one of the app's events due again at
    /// once for each of its webhooks (a dead letter, or a delivered event sent again on purpose),
    /// as `revenuedot events resend` does beside this server. 200 `{"event_id", "status": "due"}`,
    /// or `"sending"` with the `webhooks` a node is sending it to right now (that attempt is left
    /// to finish); 404 for an event the app does not have; 409 when the app has no webhook.
    package func resend(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request), access == .secret else { return reply(APIKeys.secretKeyRequired) }
        let typed = request.pathParameters["event_id"] ?? ""
        let event: (id: String, appId: String)?
        do { event = try store.event(named: typed) } catch { return reply(.storageFailure(error, access: access)) }
        let id = event?.id ?? typed
        guard event?.appId == app.id else {
            return reply(.error(status: 404, code: "not_found", message: "app \"\(app.id)\" has no event \(id)"))
        }
        // Only an app with a webhook has a worker to send it: anything else would wait forever.
        guard !app.webhooks.isEmpty else {
            return reply(
                .error(
                    status: 409, code: "no_webhook", message: "app \"\(app.id)\" has no webhook configured to send \(id) to"))
        }
        store.resendEvent(id, webhooks: app.webhooks.map(\.route), nowMs: UnixTime.nowMs) { result in
            switch result {
            case .failure(let error): reply(.storageFailure(error, access: access))
            case .success(.noEvent):
                reply(.error(status: 404, code: "not_found", message: "app \"\(app.id)\" has no event \(id)"))
            case .success(.due):
                reply(.json(Data(JSONValue.object(["event_id": .string(id), "status": .string("due")]).serialized().utf8)))
            case .success(.sending(let webhooks)):
                let body = JSONValue.object([
                    "event_id": .string(id), "status": .string("sending"), "webhooks": .array(webhooks.map(JSONValue.string)),
                ])
                reply(.json(Data(body.serialized().utf8)))
            }
        }
    }
}
