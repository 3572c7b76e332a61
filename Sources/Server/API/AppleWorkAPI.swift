import AppStore
import AppStoreServerAPI
import Foundation
import HTTP
import JSON
import Storage
import Threads

/// `POST /v1/apple/import`, `POST /v1/apple/reconcile` and `POST /v1/apple/backfill-mark`
/// (secret key): what `revenuedot import`, `reconcile` and `backfill` ask of the server that has
/// the database, so they give the same result beside it as without it, through its one client
/// per app and environment (and so within its `appleApi.requestsPerSecond`).
///
/// Import takes `{"original_transaction_id", "app_user_id"?, "environments"?, "emit_events"?}`
/// and answers `{"outcome": "imported"|"already_known"|"linked"|"not_found"|"failed"|"unavailable", "reason"?}`
/// (`unavailable`: Apple or storage cannot take any row now, and the command stops);
/// reconcile takes `{"original_transaction_id"}` and answers `{"drifts": [{"field", "stored",
/// "apple"}], "applied", "note"?}`; backfill-mark takes `{"environment", "read_through"}` (UNIX
/// ms, not after now: what a completed `revenuedot backfill` read Apple's history through) and
/// answers `{"read_through"}`, the mark now (a mark already further on stays). Apple is asked
/// off the server's workers.
package struct AppleWorkAPI: Sendable {
    package let keys: APIKeys
    package let store: Store
    package let clients: AppleAPIClientPool
    package let clock: @Sendable () -> Date

    package func importRow(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request), access == .secret else {
            return reply(APIKeys.secretKeyRequired)
        }
        guard let body = try? JSONValue(parsingWithoutRepeatedNames: request.body),
            let id = Self.originalTransactionId(body)
        else {
            return reply(Self.badBody(#"{"original_transaction_id": "<decimal id>", "app_user_id": "..."}"#, request.body))
        }
        if let stray = Self.strayMember(of: body, allowed: Self.importMembers) { return reply(stray) }
        let user = body["app_user_id"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        if let user, let refused = AppUserIdRule.refusal(user, access: .secret) { return reply(refused) }
        var environments = Backfill.environments(of: app)
        if let named = body["environments"]?.arrayValue {
            let asked = named.compactMap(\.stringValue).map(AppStoreEnvironment.init(rawValue:))
            guard asked.count == named.count, !asked.isEmpty, asked.allSatisfy(app.environments.contains) else {
                return reply(.error(status: 400, code: "bad_request", message: "environments must name the app's environments"))
            }
            environments = asked
        }
        guard app.inAppPurchaseKey != nil else { return reply(Self.noKey(app)) }
        let emit = body["emit_events"] == .bool(true)
        let (store, clients, clock, asked) = (store, clients, clock, environments)
        DispatchQueue.global().async {
            let outcome = Import.importRow(
                Import.Row(originalTransactionId: id, appUserId: user), app: app, environments: asked,
                clients: clients, store: store, emitEvents: emit, nowMs: UnixTime.milliseconds(clock()))
            var answer: [String: JSONValue]
            switch outcome {
            case .imported: answer = ["outcome": .string("imported")]
            case .alreadyKnown: answer = ["outcome": .string("already_known")]
            case .linked: answer = ["outcome": .string("linked")]
            case .notFound: answer = ["outcome": .string("not_found")]
            case .failed(let reason): answer = ["outcome": .string("failed"), "reason": .string(reason)]
            case .unavailable(let reason): answer = ["outcome": .string("unavailable"), "reason": .string(reason)]
            }
            reply(.json(Data(JSONValue.object(answer).serialized().utf8)))
        }
    }

    package func reconcile(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request), access == .secret else {
            return reply(APIKeys.secretKeyRequired)
        }
        guard let body = try? JSONValue(parsingWithoutRepeatedNames: request.body),
            let id = Self.originalTransactionId(body)
        else { return reply(Self.badBody(#"{"original_transaction_id": "<decimal id>"}"#, request.body)) }
        if let stray = Self.strayMember(of: body, allowed: ["original_transaction_id": Self.anything]) { return reply(stray) }
        guard app.inAppPurchaseKey != nil else { return reply(Self.noKey(app)) }
        let (store, clients, clock) = (store, clients, clock)
        DispatchQueue.global().async {
            let nowMs = UnixTime.milliseconds(clock())
            do {
                guard let state = try Reconcile.candidates(app: app, store: store, nowMs: nowMs, only: id).first else {
                    return reply(
                        .error(
                            status: 404, code: "not_found",
                            message: "no subscription \(id) with access now or in the last 60 days"))
                }
                let client = try clients.client(for: app, environment: Reconcile.environment(of: state))
                let outcome = try Reconcile.reconcile(state, app: app, client: client, store: store, nowMs: nowMs)
                reply(.json(Data(outcome.json.serialized().utf8)))
            } catch {
                // 503 when no call would get through now (the command stops), 502 for this one.
                let everyCall = (error as? AppStoreServerAPIError)?.failsEveryCall == true
                reply(.error(status: everyCall ? 503 : 502, code: "reconcile_failed", message: "\(error)"))
            }
        }
    }

    package func advanceBackfillMark(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let (app, access) = keys.authenticate(request), access == .secret else {
            return reply(APIKeys.secretKeyRequired)
        }
        let shape = #"{"environment": "Production"|"Sandbox", "read_through": <UNIX ms, not after now>}"#
        let nowMs = UnixTime.milliseconds(clock())
        guard let body = try? JSONValue(parsingWithoutRepeatedNames: request.body),
            let environment = body["environment"]?.stringValue.map(AppStoreEnvironment.init(rawValue:)),
            Backfill.environments(of: app).contains(environment), case .integer(let through) = body["read_through"],
            through > 0, through <= nowMs
        else { return reply(Self.badBody(shape + " of an environment the app accepts", request.body)) }
        if let stray = Self.strayMember(of: body, allowed: ["environment": Self.anything, "read_through": Self.anything]) {
            return reply(stray)
        }
        let store = store
        store.advanceBackfillMark(
            appId: app.id, environment: environment.rawValue, readThroughMs: through, nowMs: nowMs
        ) { result in
            switch result {
            case .success(let mark): reply(.json(Data(JSONValue.object(["read_through": .integer(mark)]).serialized().utf8)))
            case .failure(let error): reply(.storageFailure(error, access: .secret))
            }
        }
    }

    private static func originalTransactionId(_ body: JSONValue) -> String? {
        guard let id = body["original_transaction_id"]?.stringValue, id.utf8.count <= 20, id.isASCIIDigits else {
            return nil
        }
        return id
    }

    /// An import's members, each with the types it may have (the others are checked as read).
    private static let importMembers: [String: @Sendable (JSONValue) -> Bool] = [
        "original_transaction_id": anything, "app_user_id": isTextOrNull, "environments": isArrayOrNull,
        "emit_events": isBoolOrNull,
    ]

    private static func anything(_: JSONValue) -> Bool { true }

    private static func isTextOrNull(_ value: JSONValue) -> Bool {
        if case .string = value { return true }
        return value == .null
    }

    private static func isBoolOrNull(_ value: JSONValue) -> Bool {
        if case .bool = value { return true }
        return value == .null
    }

    private static func isArrayOrNull(_ value: JSONValue) -> Bool { value.arrayValue != nil || value == .null }

    /// The refusal of a body with a member `allowed` does not name, or one its check refuses
    /// (the wrong type): a misspelt or mistyped member is not read as absent.
    private static func strayMember(of body: JSONValue, allowed: [String: @Sendable (JSONValue) -> Bool]) -> HTTPResponse? {
        guard case .object(let members) = body else { return nil }
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            guard let check = allowed[name] else {
                return .error(status: 400, code: "bad_request", message: "unknown member \"\(name)\"")
            }
            guard check(value) else {
                return .error(status: 400, code: "bad_request", message: "\(name) has the wrong type")
            }
        }
        return nil
    }

    private static func badBody(_ shape: String, _ body: Data) -> HTTPResponse {
        .error(status: 400, code: "bad_request", message: BodyShape.refusal(body, shape: "the body must be \(shape)"))
    }

    private static func noKey(_ app: AppConfig) -> HTTPResponse {
        .error(
            status: 409, code: "no_app_store_server_api",
            message: "app \"\(app.id)\" has no inAppPurchaseKey to ask Apple with")
    }
}
