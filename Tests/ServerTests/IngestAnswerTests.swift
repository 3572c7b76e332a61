import AppStore
import Foundation
import JSON
import LoopbackClient
import Synchronization
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Every row of the answer table (DESIGN.md "Answers to Apple") against the real server.
@Suite("POST /v1/apple/notifications/{appId}")
struct IngestAnswerTests {
    let fixture: ServerFixture
    let service: RevenueDotService
    let connection: LoopbackConnection

    init() throws {
        fixture = try ServerFixture()
        service = try fixture.startService()
        // The start's pass over held notifications, done: one it found posted to the wrong
        // app's URL would move to the app that accepts it, which is not what these tests watch.
        service.waitForHeldNotifications()
        connection = try LoopbackConnection(port: service.port)
    }

    func stored(_ uuid: String) throws -> NotificationRecord? {
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        return try store.notification(uuid: uuid)
    }

    func json(_ response: LoopbackResponse) throws -> JSONValue { try JSONValue(parsing: response.body) }

    @Test func validNotificationIsStoredThenAnswered200() throws {
        defer { service.shutdown() }
        let uuid = UUID().uuidString.lowercased()
        let payload = try fixture.signer.notification(uuid: uuid, originalTransactionId: "77")
        let response = try connection.postNotification(payload)
        #expect(response.status == 200)
        #expect(try json(response)["status"] == .string("stored"))
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"notificationUUID":"\#(uuid)","status":"stored"}"#)
        let record = try #require(try stored(uuid))
        #expect(record.state == .applied)
        #expect(record.notificationType == "DID_RENEW")
        #expect(record.environment == "Sandbox")
        #expect(record.originalTransactionId == "77")
        #expect(record.transaction?.productId == "pro.monthly")
        #expect(record.renewalInfo?.originalTransactionId == "77")
        #expect(record.signedPayload == payload)
        // Stored compressed (a zstd frame, without a dictionary before the store has trained one).
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        let stored = try store.read { (rows) throws(StoreError) -> [[SQLValue]] in
            try rows.query("SELECT length(payload) FROM notifications WHERE notification_uuid = ?", [.text(uuid)])
        }
        #expect((stored.first?.first?.integerValue ?? .max) * 3 / 2 < Int64(payload.utf8.count))
    }

    @Test func duplicateUUIDIsAnswered200AndChangesNothing() throws {
        defer { service.shutdown() }
        let uuid = UUID().uuidString.lowercased()
        let first = try fixture.signer.notification(uuid: uuid)
        #expect(try connection.postNotification(first).status == 200)
        let before = try #require(try stored(uuid))
        // A retry (same payload), a different payload reusing the UUID, and one giving it in
        // upper case (UUIDs are compared in lower case): all are duplicates.
        for payload in [
            first, try fixture.signer.notification(uuid: uuid, type: "EXPIRED"),
            try fixture.signer.notification(uuid: uuid.uppercased()),
        ] {
            let response = try connection.postNotification(payload)
            #expect(response.status == 200)
            #expect(try json(response)["status"] == .string("duplicate"))
        }
        #expect(try stored(uuid) == before)
    }

    @Test func otherBundleOrEnvironmentIsHeldAndAnswered200() throws {
        defer { service.shutdown() }
        let otherBundle = UUID().uuidString.lowercased()
        var response = try connection.postNotification(try fixture.signer.notification(uuid: otherBundle, bundleId: "com.other"))
        #expect(response.status == 200)
        #expect(try json(response)["status"] == .string("held"))
        #expect(try stored(otherBundle)?.state == .held)
        #expect(try stored(otherBundle)?.stateReason?.hasPrefix("invalidAppIdentifier") == true)

        let production = UUID().uuidString.lowercased()
        let payload = try fixture.signer.notification(uuid: production, environment: "Production")
        response = try connection.postNotification(payload, app: "sandbox-only")
        #expect(response.status == 200)
        #expect(try stored(production)?.state == .held)
        #expect(try stored(production)?.stateReason?.hasPrefix("invalidEnvironment") == true)
        // The backlog an operator watches for a configuration to fix.
        let metrics = String(decoding: try connection.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("revenuedot_notifications_held_backlog 2\n"))
        #expect(metrics.contains("revenuedot_notifications_held_total 2\n"))
    }

    /// A Sandbox notification carrying a Production transaction is Apple's yet not one Apple's
    /// libraries accept: held, not applied, not lost.
    @Test func aNestedTransactionOfAnotherEnvironmentIsHeld() throws {
        defer { service.shutdown() }
        let uuid = UUID().uuidString.lowercased()
        let payload = try fixture.signer.notification(uuid: uuid, transactionFields: ["environment": .string("Production")])
        let response = try connection.postNotification(payload)
        #expect(response.status == 200)
        #expect(try json(response)["status"] == .string("held"))
        let reason = try #require(try stored(uuid)?.stateReason)
        #expect(reason.hasPrefix("invalidEnvironment: data.signedTransactionInfo: environment Production"), "\(reason)")
    }

    /// A signed notification with a number outside the ranges RevenueDot computes with (an
    /// expiry in 2103, two million items): Apple's libraries accept it, so it is kept, held,
    /// answered 200, rather than refused until Apple gives up. Tampered with, it is refused.
    @Test func aSignedNotificationWithAnImplausibleNumberIsHeldNotLost() throws {
        defer { service.shutdown() }
        let uuid = UUID().uuidString.lowercased()
        let payload = try fixture.signer.notification(
            uuid: uuid, transactionFields: ["expiresDate": .integer(4_200_000_000_000), "quantity": .integer(2_000_000)])
        let response = try connection.postNotification(payload)
        #expect(response.status == 200)
        #expect(try json(response)["status"] == .string("held"))
        let record = try #require(try stored(uuid))
        #expect(record.state == .held)
        #expect(record.stateReason?.contains("data.signedTransactionInfo") == true, "\(record.stateReason ?? "")")
        #expect(record.signedPayload == payload)

        let tampered = UUID().uuidString.lowercased()
        var parts = try fixture.signer.notification(
            uuid: tampered, transactionFields: ["expiresDate": .integer(4_200_000_000_000)]
        ).split(separator: ".").map(String.init)
        parts[2] = String(parts[2].reversed())
        let refused = try connection.postNotification(parts.joined(separator: "."))
        #expect(refused.status == 401)
        #expect(try stored(tampered) == nil)
    }

    /// What Apple signed that is no notification about a configured app (another developer's
    /// notification, a transaction) is refused, not held: anyone can get such payloads, and
    /// holding them would let anyone store rows without end.
    @Test func signedPayloadsAboutNoConfiguredAppAreRefused() throws {
        defer { service.shutdown() }
        var stranger = fixture.signer
        stranger.appAppleId = 999
        let uuid = UUID().uuidString.lowercased()
        let response = try connection.postNotification(try stranger.notification(uuid: uuid, bundleId: "com.other"))
        #expect(response.status == 401)
        #expect(try json(response)["error"]?["code"] == .string("invalidAppIdentifier"))
        // Why is for the operator: the answer does not name the app's bundle id.
        #expect(!response.text.contains("com.example.app"), "\(response.text)")
        #expect(try json(response)["error"]?["message"] == .string(Routes.rejected))
        let transaction = try fixture.signer.sign(
            .object([
                "transactionId": .string("1"), "originalTransactionId": .string("1"),
                "bundleId": .string("com.example.app"), "environment": .string("Sandbox"),
            ]))
        #expect(try connection.postNotification(transaction).status == 401)
        service.shutdown()
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        #expect(try store.notifications(NotificationFilter()).isEmpty)
        #expect(try store.rejectLog().counts["invalidAppIdentifier"] == 2)
        #expect(try store.rejectLog().recent.contains { $0.reason.contains("not held") })
    }

    @Test(arguments: [
        "not json", "[]", #"{"signed": "x"}"#, #"{"signedPayload": 42}"#, #"{"signedPayload": ""}"#, "",
        // Which of two would be Apple's is a guess.
        #"{"signedPayload": "a.b.c", "signedPayload": "d.e.f"}"#,
    ])
    func malformedBodyIs400(body: String) throws {
        defer { service.shutdown() }
        let response = try connection.request("POST", "/v1/apple/notifications/demo", body: Data(body.utf8))
        #expect(response.status == 400)
        #expect(try json(response)["error"]?["code"] == .string("bad_request"))
    }

    @Test func forgedPayloadIs401AndOnlyTheRejectLogRemembersIt() throws {
        defer { service.shutdown() }
        let forger = SignedNotifications(chain: try TestChain(name: "Forger"))
        let uuid = UUID().uuidString.lowercased()
        let response = try connection.postNotification(try forger.notification(uuid: uuid))
        #expect(response.status == 401)
        #expect(try json(response)["error"]?["code"] == .string("verificationFailure"))
        let tampered = try fixture.signer.notification().replacingOccurrences(of: ".", with: ".e30", options: [], range: nil)
        #expect(try connection.postNotification(tampered).status == 401)
        service.shutdown()
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        #expect(try store.notification(uuid: uuid) == nil)
        #expect(try store.notifications(NotificationFilter()).isEmpty)
        let log = try store.rejectLog()
        #expect(log.counts["verificationFailure"] == 2)
        #expect(log.recent.first?.appId == "demo")
    }

    /// A client chooses what a rejected payload says (here a 20,000-byte `alg`, in a header just
    /// under the verifier's limit); the 401 and the reject log keep a bounded part of it,
    /// counted in bytes: an `alg` of one letter and 10,000 combining accents is one character.
    @Test(arguments: [false, true])
    func aRejectKeepsABoundedReason(combiningMarks: Bool) throws {
        defer { service.shutdown() }
        let alg =
            combiningMarks ? "A" + String(repeating: "\u{301}", count: 10_000) : String(repeating: "A", count: 20_000)
        let header = Data(#"{"alg":"\#(alg)","x5c":[]}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "")
        let response = try connection.postNotification("\(header).e30.c2ln")
        #expect(response.status == 401)
        #expect(response.body.count < 2000)
        service.shutdown()
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        let reason = try #require(try store.rejectLog().recent.first?.reason)
        #expect(reason.utf8.count <= Reject.maximumReasonLength + 3)
        #expect(reason.utf8.starts(with: "alg \"A".utf8))
        #expect(reason.contains("more bytes cut"))
    }

    @Test func unknownAppIs404() throws {
        defer { service.shutdown() }
        let response = try connection.postNotification(try fixture.signer.notification(), app: "nope")
        #expect(response.status == 404)
        #expect(try json(response)["error"]?["code"] == .string("unknown_app"))
        // A wrong URL in App Store Connect loses every notification: /metrics shows it.
        let text = String(decoding: try connection.request("GET", "/metrics").body, as: UTF8.self)
        #expect(text.contains("revenuedot_notifications_received_total 1\n"))
        #expect(text.contains(#"revenuedot_notifications_rejected_total{status="unknownApp"} 1"#))
        #expect(
            text.contains(
                #"revenuedot_http_requests_total{method="POST",route="/v1/apple/notifications/{appId}",code="404"} 1"#))
    }

    @Test(arguments: [(1 << 20) + 1, 10 << 20])
    func bodyOverTheLimitIs413(size: Int) throws {
        defer { service.shutdown() }
        let started = Date()
        let response = try connection.request("POST", "/v1/apple/notifications/demo", body: Data(count: size))
        #expect(response.status == 413)
        #expect(Date().timeIntervalSince(started) < 5)
        // Others are still served.
        let other = try LoopbackConnection(port: service.port)
        #expect(try other.postNotification(try fixture.signer.notification()).status == 200)
        // Answered by the server before ingest, and still counted as a refused notification.
        let metrics = String(decoding: try other.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"revenuedot_notifications_rejected_total{status="payloadTooLarge"} 1"#))
        // Received as well: the one refused and the one stored.
        #expect(metrics.contains("revenuedot_notifications_received_total 2\n"))
    }

    @Test func storageThatCannotCommitIs503() throws {
        defer { service.shutdown() }
        let store = try Store(path: fixture.directory.path("closed.sqlite"))
        store.close()
        let ingest = Ingest(verifiers: try AppVerifiers.forApps(of: try fixture.config()), store: store, metrics: Metrics())
        let outcome = ingest.receive(appId: "demo", body: SignedNotifications.body(try fixture.signer.notification()))
        guard case .unavailable = outcome else {
            Issue.record("expected unavailable, got \(outcome)")
            return
        }
        #expect(Routes.response(for: outcome).status == 503)
    }

    @Test func healthAndMetrics() throws {
        defer { service.shutdown() }
        #expect(try connection.request("GET", "/health").status == 200)
        _ = try connection.postNotification(try fixture.signer.notification())
        _ = try connection.postNotification(try SignedNotifications(chain: try TestChain(name: "F")).notification())
        // A request is counted when libmicrohttpd completes it, which can come just after the
        // client has read its answer: the scrape is taken once both posts are counted.
        var metrics = try connection.request("GET", "/metrics")
        let counted = #"revenuedot_http_requests_total{method="POST",route="/v1/apple/notifications/{appId}",code="401"} 1"#
        #expect(
            poll(seconds: 10) {
                if String(decoding: metrics.body, as: UTF8.self).contains(counted) { return true }
                metrics = (try? connection.request("GET", "/metrics")) ?? metrics
                return false
            })
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("revenuedot_notifications_received_total 2"))
        #expect(text.contains("revenuedot_notifications_stored_total 1"))
        #expect(text.contains(#"revenuedot_notifications_rejected_total{status="verificationFailure"} 1"#))
        #expect(
            text.contains(
                #"revenuedot_http_request_duration_seconds_bucket{method="POST",route="/v1/apple/notifications/{appId}",le="+Inf"} 2"#
            ))
        #expect(text.contains("revenuedot_storage_commit_batch_size_count"))
        // The stored notification's answer waited for a flush of the WAL, reported before it.
        let flushes = text.split(separator: "\n").first { $0.hasPrefix("revenuedot_storage_flush_duration_seconds_count ") }
        #expect(flushes.flatMap { Int($0.split(separator: " ")[1]) }.map { $0 >= 1 } == true)
        #expect(text.contains(#"revenuedot_storage_flush_duration_seconds_bucket{le="+Inf"}"#))
        #expect(text.contains("revenuedot_http_open_connections "))
        #expect(
            text.contains(
                #"revenuedot_http_requests_total{method="POST",route="/v1/apple/notifications/{appId}",code="200"} 1"#))
        #expect(
            text.contains(
                #"revenuedot_http_requests_total{method="POST",route="/v1/apple/notifications/{appId}",code="401"} 1"#))
    }

    /// Counters and histograms a dashboard alerts on are there at 0 from the start: the first
    /// dead letter or refusal after a start is an increase, not a series that appears at 1.
    @Test func alertedSeriesStartAtZero() throws {
        defer { service.shutdown() }
        let text = String(decoding: try connection.request("GET", "/metrics").body, as: UTF8.self)
        for series in [
            #"revenuedot_webhook_deliveries_total{outcome="dead"} 0"#,
            #"revenuedot_webhook_deliveries_total{outcome="unrecorded"} 0"#,
            #"revenuedot_notifications_rejected_total{status="verificationFailure"} 0"#,
            #"revenuedot_notifications_rejected_total{status="unknownApp"} 0"#,
            #"revenuedot_backfill_runs_total{outcome="failed"} 0"#,
            #"revenuedot_consumption_answers_total{outcome="failed"} 0"#,
            #"revenuedot_reconciled_subscriptions_total{outcome="failed"} 0"#,
            "revenuedot_webhook_delivery_latency_seconds_count 0",
            "revenuedot_storage_failing 0",
        ] {
            #expect(text.contains(series + "\n"), "missing: \(series)")
        }
    }

    /// The method is what the client sent: made-up ones share one series, so nobody can grow
    /// `/metrics` (and the memory behind it) by inventing methods.
    @Test func madeUpMethodsShareOneSeries() throws {
        defer { service.shutdown() }
        // Each on its own connection: a method other than GET or HEAD without a length closes it.
        for index in 0..<20 { #expect(try LoopbackConnection(port: service.port).request("M\(index)", "/x").status == 404) }
        #expect(try LoopbackConnection(port: service.port).request("get", "/health").status == 405)
        let text = String(decoding: try connection.request("GET", "/metrics").body, as: UTF8.self)
        #expect(text.contains(#"revenuedot_http_request_duration_seconds_count{method="other",route="unmatched"} 21"#))
        #expect(!text.contains(#"method="M1""#))
        #expect(!text.contains(#"method="get""#))
    }
}

/// `GET /health` while another connection holds the database's write lock.
@Suite("GET /health with a locked database")
struct HealthWhileLockedTests {
    /// A probe waits for the writer without holding an HTTP worker: with two workers and six
    /// probes waiting, other requests are still answered at once; each probe gets 503 after the
    /// health check's timeout, and 200 again once the lock is gone.
    @Test func probesWaitWithoutHoldingWorkers() throws {
        let fixture = try ServerFixture(extraHTTP: #", "http": {"threads": 2}"#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let other = try Store(path: fixture.databasePath)
        defer { other.close() }
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // Runs before `other.close()`, which waits for the holder: a failed expectation must not hang.
        defer { release.signal() }
        let holder = Thread {
            try? other.write { _ in
                locked.signal()
                release.wait()
            }
        }
        holder.start()
        locked.wait()

        let statuses = Mutex<[Int]>([])
        let probed = DispatchSemaphore(value: 0)
        let port = service.port
        let probes = Thread {
            runOnThreads(6) { _ in
                let status = (try? LoopbackConnection(port: port).request("GET", "/health").status) ?? 0
                statuses.withLock { $0.append(status) }
            }
            probed.signal()
        }
        probes.start()
        Thread.sleep(forTimeInterval: 0.3)
        let started = Date()
        let metrics = try LoopbackConnection(port: port).request("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(Date().timeIntervalSince(started) < 1, "a worker was held by a waiting probe")
        #expect(probed.wait(timeout: .now() + 10) == .success)
        #expect(statuses.withLock { $0 } == Array(repeating: 503, count: 6))

        release.signal()
        var healthy = false
        for _ in 0..<100 where !healthy {
            healthy = (try? LoopbackConnection(port: port).request("GET", "/health").status) == 200
            if !healthy { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(healthy)
    }
}
