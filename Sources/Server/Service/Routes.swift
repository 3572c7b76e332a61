import AppStore
import Foundation
import HTTP
import JSON
import Storage
import Threads

/// The HTTP API of the service (README "HTTP API"): routes and how outcomes become answers.
package enum Routes {
    /// Where Apple posts an app's notifications.
    package static let notificationRoute = "/v1/apple/notifications/{appId}"
    /// The largest request body of the API's routes (all but Apple's notifications).
    package static let apiMaxBodyBytes = 64 << 10

    package static func router(
        ingest: Ingest, subscribers: SubscribersAPI, events: EventsAPI, commerce: CommerceAPI, apple: AppleWorkAPI,
        store: Store, metrics: Metrics, alarm: StorageAlarm? = nil, webhooks: [WebhookKey] = [],
        docs: (@Sendable (String) -> HTTPResponse?)? = nil, work: WorkerPool
    ) -> Router {
        let offWorker: (@escaping @Sendable (HTTPRequest) -> HTTPResponse) -> HTTPDeferredHandler = {
            Self.offWorker($0, on: work)
        }
        var router = Router()
        // The notification reference (`revenuedot serve` gives the pages; none in tests that do not).
        if let docs {
            let missing = HTTPResponse.error(status: 404, code: "not_found", message: "no such page")
            router.add("GET", "/docs") { _ in docs("") ?? missing }
            router.add("GET", "/docs/{page}") { docs($0.pathParameters["page"] ?? "") ?? missing }
        }
        router.addDeferred("POST", "/v1/apple/import") { apple.importRow($0, reply: $1) }
        router.addDeferred("POST", "/v1/apple/reconcile") { apple.reconcile($0, reply: $1) }
        router.addDeferred("POST", "/v1/apple/backfill-mark") { apple.advanceBackfillMark($0, reply: $1) }
        // Handlers that wait on storage run off the HTTP worker (`offWorker`).
        router.addDeferred("POST", "/v1/advanced-commerce/{appId}/requests", offWorker(commerce.create))
        router.addDeferred("GET", "/v1/advanced-commerce/{appId}/requests/{requestReferenceId}", offWorker(commerce.show))
        router.addDeferred("GET", "/v1/events", offWorker(events.events))
        router.addDeferred("POST", "/v1/events/{event_id}/resend") { events.resend($0, reply: $1) }
        // RevenueCat's paths answer errors in RevenueCat's shape. GET is deferred: an unknown
        // customer is created first (a write), as RevenueCat creates it.
        let revenueCat: [(String, String, @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void)] = [
            ("GET", "/v1/subscribers/{app_user_id}", subscribers.subscriber),
            ("DELETE", "/v1/subscribers/{app_user_id}", subscribers.delete),
            ("POST", "/v1/subscribers/identify", subscribers.identify),
            ("POST", "/v1/subscribers/{app_user_id}/alias", subscribers.alias),
            ("POST", "/v1/subscribers/{app_user_id}/attributes", subscribers.setAttributes),
            ("POST", "/v1/subscribers/{app_user_id}/transactions", subscribers.postTransaction),
            ("POST", "/v1/receipts", subscribers.postReceipt),
            ("POST", "/v1/offers", subscribers.signOffers),
            ("POST", "/v1/subscribers/{app_user_id}/restore/eligibility", subscribers.restoreEligibility),
            ("GET", "/v1/subscribers/{app_user_id}/offerings", subscribers.offerings),
            ("POST", "/v1/subscribers/{app_user_id}/offerings/{offering_id}/override", subscribers.overrideOffering),
            ("DELETE", "/v1/subscribers/{app_user_id}/offerings/override", subscribers.removeOfferingOverride),
            ("GET", "/v1/product_entitlement_mapping", subscribers.productEntitlementMapping),
            ("POST", "/v1/subscribers/{app_user_id}/entitlements/{entitlement}/promotional", subscribers.grantPromotional),
            (
                "POST", "/v1/subscribers/{app_user_id}/entitlements/{entitlement}/revoke_promotionals",
                subscribers.revokePromotionals
            ),
        ]
        // Each reads storage before it answers or writes (the customer, its aliases): off the
        // HTTP worker, as `offWorker`; but `GET`, the hot path, which reads on the worker while
        // others are free (`InlineReads`).
        for (method, path, handler) in revenueCat {
            let onWorker = method == "GET"
            router.addDeferred(method, path) { request, reply in
                let answering: @Sendable () -> Void = { handler(request) { reply(RevenueCatError.translate($0)) } }
                if onWorker { answering() } else { work.submit(answering) }
            }
        }
        // The server's own answers there too (a path that is not UTF-8, a route that is not
        // served, a body too large, a shutdown): every path under /v1 but RevenueDot's own is
        // RevenueCat's, so its SDKs read an answer to a path RevenueDot does not serve (customer
        // center, virtual currencies) as RevenueCat's error. The first prefix that matches wins.
        for own in ["/v1/apple", "/v1/advanced-commerce", "/v1/events"] { router.shapeRefusals(under: own) { $0 } }
        router.shapeRefusals(under: "/v1", RevenueCatError.translate)
        // The API's bodies are small JSON (a signed transaction is a few KB): a larger one is
        // refused from its head, not parsed into a tree many times its size. Apple's
        // notifications keep `http.maxBodyBytes`.
        for prefix in [
            "/v1/subscribers", "/v1/receipts", "/v1/offers", "/v1/product_entitlement_mapping", "/v1/advanced-commerce",
            "/v1/events",
            "/v1/apple/import", "/v1/apple/reconcile",
            "/v1/apple/backfill-mark",
        ] {
            router.limitBodies(under: prefix, to: apiMaxBodyBytes)
        }
        // Deferred: the worker verifies, then serves other connections while the commit is on its way.
        router.addDeferred("POST", notificationRoute) { request, reply in
            ingest.receive(appId: request.pathParameters["appId"] ?? "", body: request.body) { reply(response(for: $0)) }
        }
        // Deferred: while the writer waits for a lock, a probe holds a connection, not a worker.
        // Which build and node answered, for a load balancer's or an operator's checks.
        let healthy = JSONValue.object([
            "status": .string("ok"), "version": .string(RevenueDotVersion.semantic),
            "commit": .string(RevenueDotVersion.commit), "node": .string(metrics.node),
        ]).serialized()
        // RevenueCat's `GET /v1/health` (the SDK's `PurchasesDiagnostics`, unauthenticated): the
        // same check, answered without the build and node, which strangers need not learn.
        for (path, body) in [("/health", healthy), ("/v1/health", #"{"status":"ok"}"#)] {
            router.addDeferred("GET", path) { _, reply in
                store.healthCheck { result in
                    switch result {
                    case .success:
                        alarm?.checkPassed()
                        reply(.json(Data(body.utf8)))
                    case .failure(let error):
                        alarm?.failed(error.description, healthCheck: true, damaged: error.isDamagedFile)
                        reply(.error(status: 503, code: "storage_unavailable", message: Self.storageUnavailable))
                    }
                }
            }
        }
        // One storage read at a time: scrapes while a disk hangs do not pile up threads on it.
        let reading = Locked(false)
        router.addDeferred("GET", "/metrics") { _, reply in
            let nowMs = UnixTime.nowMs
            let answer = Once(reply)
            @Sendable func render(_ read: (OutboxStatus, Int, TimerBacklog)?) -> HTTPResponse {
                .text(
                    metrics.render(
                        outbox: read?.0, webhooks: webhooks, heldBacklog: read?.1, timers: read?.2,
                        storageRead: read != nil, storageFailing: alarm?.isFailing),
                    contentType: "text/plain; version=0.0.4; charset=utf-8")
            }
            // Storage that does not answer (a hung disk, a silent link) leaves its gauges out
            // rather than the scrape unanswered.
            guard reading.claim() else { return answer(render(nil)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + metricsReadTimeout) { answer(render(nil)) }
            work.submit {
                defer { reading.withLock { $0 = false } }
                // One snapshot (one round trip's wait on PostgreSQL); a read that failed (storage
                // down, a silent link) is not tried again within the scrape.
                let read = try? store.read { (rows) throws(StoreError) in
                    (
                        try Deliveries.status(nowMs: nowMs, from: rows), try NotificationCounts.held(from: rows),
                        try PendingTimers.overdue(atMs: nowMs, from: rows)
                    )
                }
                answer(render(read))
            }
        }
        return router
    }

    /// How long a scrape of `/metrics` waits for storage before it answers without its gauges.
    static let metricsReadTimeout: DispatchTimeInterval = .seconds(5)

    /// `handler` run on `work`'s threads, its answer deferred: a handler that waits on storage
    /// (a read, a commit) must not hold an HTTP worker, whose other connections would wait with
    /// it, and whose shutdown would wait for a disk that hangs; deferred, the handler deadline
    /// (`handlerTimeoutSeconds`) answers 503 for it.
    static func offWorker(_ handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse, on work: WorkerPool)
        -> HTTPDeferredHandler
    {
        { request, reply in work.submit { reply(handler(request)) } }
    }

    /// A reply that answers once: the first answer goes, later ones are dropped.
    private final class Once: Sendable {
        private let reply: @Sendable (HTTPResponse) -> Void
        private let answered = Locked(false)

        init(_ reply: @escaping @Sendable (HTTPResponse) -> Void) { self.reply = reply }

        func callAsFunction(_ response: HTTPResponse) {
            guard answered.claim() else { return }
            reply(response)
        }
    }

    /// The answer Apple gets: 200 once stored (duplicates and held ones too), else an error body.
    package static func response(for outcome: IngestOutcome) -> HTTPResponse {
        switch outcome {
        case .stored(let uuid): stored("stored", uuid)
        case .duplicate(let uuid): stored("duplicate", uuid)
        case .held(let uuid, _): stored("held", uuid)
        case .badRequest(let message): .error(status: outcome.httpStatus, code: "bad_request", message: message)
        case .rejected(let status, _): .error(status: outcome.httpStatus, code: status, message: rejected)
        case .unknownApp(let id):
            .error(status: outcome.httpStatus, code: "unknown_app", message: "no app \"\(id)\" is configured")
        case .unavailable: .error(status: outcome.httpStatus, code: "storage_unavailable", message: storageUnavailable)
        case .busy: busy
        }
    }

    /// What a 401 says besides its verification status: why is for the operator (the reject log,
    /// the server's log), not for whoever posted; it may name the app's bundle id and
    /// environments, which Apple's libraries do not tell either.
    static let rejected = "the signed payload did not verify; the server's reject log says why"

    /// The 503 for a notification the verifiers' queue had no room for (`Ingest.maxQueuedVerifications`).
    private static var busy: HTTPResponse {
        .retryLater("server_busy", "the server is verifying as many notifications as it queues: send it again shortly")
    }

    /// What a 503 for storage says: the cause (paths, the database's own words) is for the
    /// server's log, which `StorageAlarm` writes, not for whoever asked.
    static let storageUnavailable = "storage cannot commit now; the server's log says why"

    /// `{"notificationUUID": uuid, "status": status}`, keys sorted as `serialized()` sorts them.
    private static func stored(_ status: String, _ uuid: String) -> HTTPResponse {
        var body = JSONWriter(capacity: 96)
        body.beginObject()
        body.member("notificationUUID", uuid)
        body.member("status", status)
        body.endObject()
        return .json(Data(body.bytes))
    }
}
