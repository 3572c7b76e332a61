import AppStore
import Foundation
import HTTP
import JSON
import Storage

/// `GET /v1/events?after=<cursor>&limit=<n>`: the event stream, for consumers who poll instead of
/// receiving webhooks (secret key only).
///
/// Events come in commit order as the webhook envelopes (`{"api_version", "event"}`), each with
/// its `cursor`; `next_cursor` is the cursor to pass as `after` next time (unchanged when there
/// is nothing new), so a consumer never misses or repeats an event.
package struct EventsAPI: Sendable {
    package let keys: APIKeys
    package let store: Store
    package static let defaultLimit = 100
    package static let maxLimit = 1000

    package func events(_ request: HTTPRequest) -> HTTPResponse {
        guard let (app, access) = keys.authenticate(request), access == .secret else { return APIKeys.secretKeyRequired }
        let after = request.query["after"].map { Int64($0) } ?? 0
        let limit = request.query["limit"].map { Int($0) } ?? Self.defaultLimit
        guard let after, after >= 0 else {
            return .error(status: 400, code: "bad_request", message: "after must be a cursor (a whole number, 0 or more)")
        }
        guard let limit, (1...Self.maxLimit).contains(limit) else {
            return .error(status: 400, code: "bad_request", message: "limit must be between 1 and \(Self.maxLimit)")
        }
        do {
            let rows = try store.read { (rows) throws(StoreError) in
                try EventRows.page(appId: app.id, after: after, limit: limit, from: rows)
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
}
