import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@testable import Tools

/// What a running server logs: a line per request, per refused notification, per failed webhook
/// attempt and dead letter, and what a reload did.
@Suite struct OperationalLogTests {
    /// A started service whose log lines are kept; the caller shuts it down.
    static func service(_ fixture: ServerFixture, log: String? = nil) throws -> (RevenueDotService, Locked<[String]>) {
        let lines = Locked<[String]>([])
        var config = try fixture.config()
        if let log {
            config = try ConfigLoader.parse(
                Data(
                    try String(contentsOfFile: fixture.configPath, encoding: .utf8)
                        .replacingOccurrences(of: "\"listen\":", with: "\"log\": \(log),\n  \"listen\":").utf8),
                file: fixture.configPath)
        }
        let service = try RevenueDotService(
            config: config, deliveryPollInterval: 0.05, log: { line in lines.withLock { $0.append(line) } })
        try service.start()
        return (service, lines)
    }

    static func lines(_ kept: Locked<[String]>, event: String) -> [String] {
        kept.withLock { $0 }.filter { $0.split(separator: " ").dropFirst(2).first == Substring(event) }
    }

    @Test func everyRequestHasAnAccessLineButProbesDoNotByDefault() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try Self.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        #expect(try connection.request("GET", "/health").status == 200)
        #expect(try connection.request("GET", "/metrics").status == 200)
        #expect(try connection.postNotification(try fixture.signer.notification()).status == 200)
        let lookup = try connection.request(
            "GET", "/v1/subscribers/alice?token=query-secret", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(lookup.status == 201, "a customer seen first is created, as RevenueCat answers")
        let access = Self.lines(kept, event: "access")
        #expect(access.count == 2, "\(access)")
        #expect(access.first?.contains("method=POST path=/v1/apple/notifications/demo status=200 ms=") == true, "\(access)")
        #expect(access.first?.contains(" remote=127.0.0.1") == true, "\(access)")
        let get = access.last ?? ""
        #expect(get.contains("method=GET path=/v1/subscribers/alice status=201"), "\(get)")
        #expect(get.contains("bytes=\(lookup.body.count)"), "\(get)")
        #expect(!get.contains("query-secret") && !get.contains("sk_test_secret"), "\(get)")
    }

    @Test func probesHaveAccessLinesWhenAskedAndNoneWhenAccessIsOff() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try Self.service(fixture, log: #"{"accessProbes": true, "format": "json"}"#)
        let connection = try LoopbackConnection(port: service.port)
        #expect(try connection.request("GET", "/health", headers: ["X-Forwarded-For": "203.0.113.9"]).status == 200)
        service.shutdown()
        let line = try #require(kept.withLock { $0 }.first { $0.contains("\"access\"") })
        let json = try JSONValue(parsing: Data(line.utf8))
        #expect(json["path"]?.stringValue == "/health")
        #expect(json["status"] == .integer(200))
        #expect(json["forwarded_for"]?.stringValue == "203.0.113.9")

        let quiet = try ServerFixture()
        let (other, none) = try Self.service(quiet, log: #"{"access": false}"#)
        #expect(try LoopbackConnection(port: other.port).postNotification(try quiet.signer.notification()).status == 200)
        other.shutdown()
        #expect(Self.lines(none, event: "access").isEmpty)
    }

    @Test func refusedNotificationsSayWhyWithoutThePayload() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try Self.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        #expect(try connection.request("POST", "/v1/apple/notifications/demo", body: Data("{}".utf8)).status == 400)
        // One character of the signature changed (mid-way: the last one may be padding bits).
        var characters = Array(try fixture.signer.notification())
        characters[characters.count - 10] = characters[characters.count - 10] == "A" ? "B" : "A"
        let forged = String(characters)
        #expect(try connection.postNotification(forged).status == 401)
        #expect(try connection.postNotification(try fixture.signer.notification(), app: "nope").status == 404)
        // A long quoted value (here the header's alg) is cut to 200 bytes in the line.
        let header = Data(#"{"alg":"\#(String(repeating: "A", count: 900))"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        #expect(try connection.postNotification("\(header).e30.c2ln").status == 401)
        let refused = Self.lines(kept, event: "notification.refused")
        #expect(refused.count == 4, "\(refused)")
        #expect(
            refused[3].contains(String(repeating: "A", count: 150) + "…")
                && !refused[3].contains(String(repeating: "A", count: 300)))
        #expect(refused[0].contains("warning notification.refused the body is not a notification app=demo status=400"))
        #expect(refused[1].contains("verification failed app=demo status=401 verification="), "\(refused[1])")
        #expect(refused[2].contains("app=nope status=404 reason=\"unknown app\""), "\(refused[2])")
        #expect(!refused.joined().contains(String(forged.prefix(40))))

        // A flood of refused posts is ten lines a second at most; the next line written (or a
        // summary, `LeftOutLinesTests`) says how many were left out.
        for _ in 0..<100 { _ = try connection.request("POST", "/v1/apple/notifications/demo", body: Data("{}".utf8)) }
        Thread.sleep(forTimeInterval: 1.1)
        _ = try connection.request("POST", "/v1/apple/notifications/demo", body: Data("{}".utf8))
        let counted = poll(seconds: 5) {
            LeftOutLinesTests.counted(Array(Self.lines(kept, event: "notification.refused").dropFirst(4))) == 101
        }
        let flood = Self.lines(kept, event: "notification.refused").dropFirst(4)
        #expect(counted, "\(flood)")
        #expect(flood.count < 60, "\(flood.count) lines")
    }

    /// A notification POST the HTTP server refuses itself (a body over the limit, a framing it
    /// refuses) never reaches ingest, and is a `notification.refused` line all the same: with the
    /// access log off, it would otherwise show only in `/metrics`.
    @Test func refusalsBeforeIngestAreLoggedToo() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try Self.service(fixture, log: #"{"access": false}"#)
        defer { service.shutdown() }
        let large = try LoopbackConnection(port: service.port)
        #expect(try large.request("POST", "/v1/apple/notifications/demo", body: Data(count: (1 << 20) + 1)).status == 413)
        let framed = try LoopbackConnection(port: service.port)
        let gzip = try framed.request(
            "POST", "/v1/apple/notifications/demo", headers: ["Transfer-Encoding": "gzip"], body: Data("{}".utf8))
        #expect(gzip.status == 400 || gzip.status == 501, "\(gzip.status)")
        // Other routes' refusals are not notifications.
        _ = try LoopbackConnection(port: service.port).request(
            "POST", "/v1/subscribers/a/attributes", body: Data(count: (1 << 20) + 1))
        let refused = Self.lines(kept, event: "notification.refused")
        #expect(refused.count == 2, "\(refused)")
        #expect(
            refused.first?.contains("refused before verification: the body is over the limit app=demo status=413") == true,
            "\(refused)")
        #expect(refused.last?.contains("app=demo status=\(gzip.status)") == true, "\(refused)")
        #expect(Self.lines(kept, event: "access").isEmpty)
    }

    /// A held notification is logged when it is stored: not again when Apple sends it again, a
    /// backfill reads it again (the overlap of every start and reload), or a reload examines it.
    @Test func aHeldNotificationIsLoggedOnceWhateverBringsItAgain() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try Self.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let uuid = UUID().uuidString.lowercased()
        // The configured app Apple ID with a mistyped bundle ID: held, and no app accepts it.
        let typo = try fixture.signer.notification(uuid: uuid, bundleId: "com.example.typo")
        #expect(try connection.postNotification(typo).status == 200)
        #expect(try connection.postNotification(typo).status == 200)
        let backfill = Ingest(
            verifiers: try AppVerifiers.forApps(of: service.current), store: service.store, metrics: service.metrics,
            log: service.log)
        #expect(backfill.submit(appId: "demo", bodies: [SignedNotifications.body(typo)]).wait() == [.duplicate(uuid: uuid)])
        for _ in 0..<2 {
            #expect(service.reload(from: fixture.configPath) == .reloaded(restartNeeded: []))
            service.waitForHeldNotifications()
        }
        #expect(try service.store.notification(uuid: uuid)?.state == .held)
        #expect(service.metrics.notificationsHeld.count == 1)
        let held = Self.lines(kept, event: "notification.held")
        #expect(held.count == 1, "\(held)")
        let said = " warning notification.held validly signed, not for this app as it is: stored held"
        #expect(held.first?.contains("\(said) app=demo uuid=\(uuid) reason=") == true, "\(held)")
    }

    /// A held notification taken up by an accepted copy is said at info, once: the warning that
    /// it was held is otherwise the last word the log has on it.
    @Test func aHeldNotificationTakenUpIsLogged() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try Self.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let uuid = UUID().uuidString.lowercased()
        // A Production notification posted to the Sandbox-only app's URL: held there.
        let production = try fixture.signer.notification(uuid: uuid, environment: "Production")
        #expect(try connection.postNotification(production, app: "sandbox-only").status == 200)
        #expect(try connection.postNotification(production, app: "demo").status == 200)
        #expect(try connection.postNotification(production, app: "demo").status == 200)
        let taken = Self.lines(kept, event: "notification.taken_up")
        #expect(taken.count == 1, "\(taken)")
        #expect(
            taken.first?.contains(
                " info notification.taken_up an accepted copy took the held one's place: applied app=demo uuid=\(uuid)") == true)
        #expect(try service.store.notification(uuid: uuid)?.state == .applied)
    }

    @Test func failedWebhookAttemptsAndDeadLettersAreLogged() throws {
        let receiver = try WebhookReceiver { _, _ in 500 }
        defer { receiver.stop() }
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url, retryDelays: "[0]")
        let (service, kept) = try Self.service(fixture)
        let connection = try LoopbackConnection(port: service.port)
        #expect(
            try connection.postNotification(try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
                .status == 200)
        poll(seconds: 10) { !Self.lines(kept, event: "webhook.dead_letter").isEmpty }
        service.shutdown()
        let failed = Self.lines(kept, event: "webhook.failed")
        let dead = Self.lines(kept, event: "webhook.dead_letter")
        #expect(failed.count == 1, "\(failed)")
        #expect(failed.first?.contains(" warning webhook.failed ") == true)
        #expect(failed.first?.contains("app=demo webhook=\"\" event_id=") == true, "\(failed)")
        #expect(failed.first?.contains("attempt=1 status=500") == true, "\(failed)")
        #expect(dead.count == 1, "\(dead)")
        #expect(dead.first?.contains(" error webhook.dead_letter ") == true && dead.first?.contains("attempt=2") == true)
        #expect(!kept.withLock { $0 }.joined().contains(WebhookDeliveryTests.secret))
    }

    /// A receiver down with a backlog fails every attempt: a line a second per webhook of each
    /// kind, the next one saying how many were left out; `/metrics` counts every attempt.
    @Test func failuresOfABacklogAreOneLineASecond() throws {
        let receiver = try WebhookReceiver { _, _ in 500 }
        defer { receiver.stop() }
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url, retryDelays: "[1, 1]")
        let (service, kept) = try Self.service(fixture)
        let connection = try LoopbackConnection(port: service.port)
        let started = ContinuousClock.now
        for index in 0..<12 {
            let purchase = try fixture.signer.notification(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "\(7_300_000_000 + index)")
            #expect(try connection.postNotification(purchase).status == 200)
        }
        let allDead = #"revenuedot_webhook_deliveries_total{outcome="dead"} 12"#
        poll(seconds: 30) { (try? connection.request("GET", "/metrics").text.contains(allDead)) == true }
        let metrics = try connection.request("GET", "/metrics").text
        service.shutdown()
        let seconds = Int((ContinuousClock.now - started).components.seconds) + 1
        let failed = Self.lines(kept, event: "webhook.failed")
        let dead = Self.lines(kept, event: "webhook.dead_letter")
        // 24 failed attempts and 12 dead letters, over two seconds or so, all counted.
        #expect(metrics.contains(allDead) && metrics.contains(#"revenuedot_webhook_deliveries_total{outcome="retry"} 24"#))
        #expect(failed.count <= seconds + 1 && dead.count <= seconds + 1, "\(seconds) s: \(failed.count), \(dead.count)")
        #expect(failed.contains { $0.contains(" left_out=") }, "\(failed)")
    }

    /// A delivered event whose outcome storage cannot commit (the database deleted under the
    /// server) is counted `unrecorded` and logged once, however often the commit is tried again.
    @Test func anOutcomeThatCannotBeCommittedIsCountedOnce() throws {
        let databasePath = Locked<String?>(nil)
        // A delivery may start before the notification's commit is on disk: the database goes
        // only once the notification was answered, or that answer would be the one to fail.
        let answered = DispatchSemaphore(value: 0)
        let receiver = try WebhookReceiver { _, _ in
            _ = answered.wait(timeout: .now() + 10)
            if let path = databasePath.value {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            return 200
        }
        defer { receiver.stop() }
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url)
        databasePath.withLock { $0 = fixture.databasePath }
        let (service, kept) = try Self.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        #expect(
            try connection.postNotification(try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
                .status == 200)
        answered.signal()
        #expect(poll(seconds: 10) { service.metrics.deliveries.counts["unrecorded"] == 1 })
        // Committing again after 1 s, then 2 s: still one attempt.
        Thread.sleep(forTimeInterval: 3.5)
        #expect(service.metrics.deliveries.counts["unrecorded"] == 1)
        #expect(service.metrics.deliveries.counts["delivered"] == 0)
        let unrecorded = Self.lines(kept, event: "webhook.unrecorded")
        #expect(unrecorded.count == 1, "\(unrecorded)")
        #expect(unrecorded.first?.contains(" warning webhook.unrecorded ") == true)
    }

    /// Another process holding the database's write lock (a `sqlite3` shell left in a
    /// transaction): `/health` goes red and the log says so once, then once more when it is over.
    @Test func aDatabaseLockedByAnotherProcessIsLoggedWhenItStartsAndEnds() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try Self.service(fixture)
        defer { service.shutdown() }
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = [
            "-c",
            "import sqlite3, sys, time\n"
                + "c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)\n"
                + "c.execute('BEGIN IMMEDIATE')\nprint('locked', flush=True)\nsys.stdin.readline()\nc.execute('ROLLBACK')\n",
            fixture.databasePath,
        ]
        let output = Pipe()
        let input = Pipe()
        holder.standardOutput = output
        holder.standardInput = input
        try holder.run()
        #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("locked"))
        let connection = try LoopbackConnection(port: service.port)
        #expect(try connection.request("GET", "/health").status == 503)
        #expect(try connection.request("GET", "/health").status == 503)
        input.fileHandleForWriting.write(Data("\n".utf8))
        holder.waitUntilExit()
        poll(seconds: 20) { (try? connection.request("GET", "/health").status) == 200 }
        let failing = Self.lines(kept, event: "storage.failing")
        #expect(failing.count == 1, "\(failing)")
        #expect(failing.first?.contains("the database did not answer") == true, "\(failing)")
        // Notifications wait for a busy database: the line does not say they are refused.
        #expect(failing.first?.contains("storage failed the health check") == true, "\(failing)")
        #expect(Self.lines(kept, event: "storage.recovered").count == 1)
    }
}
