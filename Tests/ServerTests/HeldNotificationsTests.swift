import AppStore
import Foundation
import HTTP
import JSON
import LoopbackClient
import Synchronization
import Testing

@testable import Server
@testable import Storage
@testable import Tools

/// Held notifications are taken up again at every start: those the fixed configuration accepts
/// are applied (and replayed from then on), the others stay held.
@Suite("Held notifications after a configuration fix")
struct HeldNotificationsTests {
    let directory = TestDirectory("held-notifications")
    let signer = SignedNotifications.shared

    /// App "demo", accepting `environments`; new purchases go to anonymous customers, so their
    /// events show in `/v1/events` without a link.
    func config(environments: [String]) throws -> RevenueDotConfig {
        let root = try directory.write("root.pem", signer.chain.root.pem)
        let listed = environments.map { "\"\($0)\"" }.joined(separator: ", ")
        let path = try directory.write(
            "revenuedot.json",
            """
            {"listen": "127.0.0.1:0", "database": "sqlite:\(directory.path("revenuedot.sqlite"))",
             "apps": [{"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234, "environments": [\(listed)],
                       "rootCertificates": ["\(root)"], "secretApiKey": "sk_held", "publicApiKey": "pk_held",
                       "trackNewPurchasesFromServerNotifications": true,
                       "entitlements": {"pro": ["pro.monthly"]}}]}
            """)
        return try ConfigLoader.load(path: path)
    }

    func stored(_ uuid: String) throws -> NotificationRecord? {
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        return try store.notification(uuid: uuid)
    }

    /// The events the app's backend can read (`key`: the app's secret key).
    func events(_ service: RevenueDotService, key: String = "sk_held") throws -> [JSONValue] {
        let response = try LoopbackConnection(port: service.port).request(
            "GET", "/v1/events?limit=1000", headers: ["Authorization": "Bearer \(key)"])
        return (try JSONValue(parsing: response.body))["events"]?.arrayValue?.compactMap { $0["event"] } ?? []
    }

    /// The original transaction ids of those events.
    func eventPurchases(_ service: RevenueDotService, key: String = "sk_held") throws -> [String] {
        try events(service, key: key).compactMap { $0["original_transaction_id"]?.stringValue }
    }

    /// Apps `wrong` (another bundle) and `right`, and with `twin` a second app accepting what `right` does.
    func twoApps(twin: Bool = false, listen: String = "127.0.0.1:0") throws -> RevenueDotConfig {
        let root = try directory.write("root.pem", signer.chain.root.pem)
        let app = { (id: String, bundle: String) in
            """
            {"id": "\(id)", "bundleId": "\(bundle)", "environments": ["Sandbox"], "rootCertificates": ["\(root)"],
             "secretApiKey": "sk_\(id)", "trackNewPurchasesFromServerNotifications": true}
            """
        }
        let apps =
            [app("wrong", "com.wrong.app"), app("right", "com.example.app")] + (twin ? [app("twin", "com.example.app")] : [])
        let path = try directory.write(
            "apps.json",
            """
            {"listen": "\(listen)", "database": "sqlite:\(directory.path("revenuedot.sqlite"))", "apps": [\(apps.joined(separator: ", "))]}
            """)
        return try ConfigLoader.load(path: path)
    }

    /// A notification posted to the wrong app's URL belongs to the app that accepts it: it moves
    /// there at the next start, unless several apps accept it. A start that cannot listen changes nothing.
    @Test func aNotificationHeldUnderTheWrongAppGoesToTheOneThatAcceptsIt() throws {
        let uuid = UUID().uuidString.lowercased()
        let purchase = "7100000002"
        var service = try RevenueDotService(quietly: try twoApps(twin: true))
        try service.start()
        let posted = try LoopbackConnection(port: service.port).postNotification(
            try signer.notification(uuid: uuid, originalTransactionId: purchase), app: "wrong")
        #expect(try JSONValue(parsing: posted.body)["status"] == .string("held"))
        service.waitForHeldNotifications()
        service.shutdown()

        // Two apps accept it: which one it is for is not for RevenueDot to guess.
        service = try RevenueDotService(quietly: try twoApps(twin: true))
        try service.start()
        service.waitForHeldNotifications()
        #expect(service.heldNotifications! == (0, 1))
        service.shutdown()
        #expect(try stored(uuid)?.stateReason?.contains("right, twin all accept it") == true)

        // A start that cannot listen (its port is taken) takes up nothing, though it would apply it.
        let taken = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1), router: Router(), observer: nil)
        try taken.start()
        let busy = try twoApps(listen: "127.0.0.1:\(taken.port)")
        // Refused before storage opens.
        #expect(throws: ConfigError.self) { _ = try RevenueDotService(quietly: busy) }
        taken.shutdown()
        #expect(try stored(uuid)?.state == .held)

        service = try RevenueDotService(quietly: try twoApps())
        try service.start()
        service.waitForHeldNotifications()
        #expect(service.heldNotifications! == (1, 0))
        #expect(try eventPurchases(service, key: "sk_right") == [purchase])
        #expect(try eventPurchases(service, key: "sk_wrong").isEmpty)
        service.shutdown()
        #expect(try stored(uuid)?.appId == "right")
        #expect(try stored(uuid)?.state == .applied)
    }

    /// A notification held under the wrong app's URL is taken up when a copy reaches the URL of
    /// an app that accepts it (Apple's retry once App Store Connect is fixed, a backfill): applied
    /// there at once, answered stored, not a duplicate until the next start. A copy that the app
    /// posted to still refuses, or one of a notification applied already, changes nothing.
    @Test func aCopyPostedToTheAppThatAcceptsItTakesUpAHeldNotification() throws {
        let uuid = UUID().uuidString.lowercased()
        let purchase = "7100000004"
        let service = try RevenueDotService(quietly: try twoApps())
        try service.start()
        defer { service.shutdown() }
        service.waitForHeldNotifications()
        let connection = try LoopbackConnection(port: service.port)
        let notification = try signer.notification(uuid: uuid, originalTransactionId: purchase)
        let held = try connection.postNotification(notification, app: "wrong")
        #expect(try JSONValue(parsing: held.body)["status"] == .string("held"))
        let again = try connection.postNotification(notification, app: "wrong")
        #expect(try JSONValue(parsing: again.body)["status"] == .string("duplicate"))
        #expect(try service.store.notification(uuid: uuid)?.state == .held)
        #expect(try eventPurchases(service, key: "sk_right").isEmpty)

        let taken = try connection.postNotification(notification, app: "right")
        #expect(taken.status == 200)
        #expect(try JSONValue(parsing: taken.body)["status"] == .string("stored"))
        #expect(try service.store.notification(uuid: uuid)?.appId == "right")
        #expect(try service.store.notification(uuid: uuid)?.state == .applied)
        #expect(try eventPurchases(service, key: "sk_right") == [purchase])
        #expect(try eventPurchases(service, key: "sk_wrong").isEmpty)

        // Applied now: every copy is a duplicate, wherever it is posted, and changes nothing.
        for app in ["right", "wrong"] {
            let copy = try connection.postNotification(notification, app: app)
            #expect(try JSONValue(parsing: copy.body)["status"] == .string("duplicate"))
        }
        let backfill = Ingest(
            verifiers: try AppVerifiers.forApps(of: service.current), store: service.store, metrics: service.metrics)
        #expect(
            backfill.submit(appId: "right", bodies: [SignedNotifications.body(notification)]).wait()
                == [.duplicate(uuid: uuid)])
        #expect(try eventPurchases(service, key: "sk_right") == [purchase])
        #expect(try service.store.notification(uuid: uuid)?.state == .applied)
    }

    /// A backfill (`Ingest.submit`, one transaction for its batch) takes up a held notification
    /// as a POST does: Apple's history gives the copy to the app whose bundle it names.
    @Test func aBackfilledCopyTakesUpAHeldNotification() throws {
        let uuid = UUID().uuidString.lowercased()
        let purchase = "7100000005"
        let service = try RevenueDotService(quietly: try twoApps())
        try service.start()
        defer { service.shutdown() }
        service.waitForHeldNotifications()
        let notification = try signer.notification(uuid: uuid, originalTransactionId: purchase)
        let other = try signer.notification(originalTransactionId: "7100000006")
        let held = try LoopbackConnection(port: service.port).postNotification(notification, app: "wrong")
        #expect(try JSONValue(parsing: held.body)["status"] == .string("held"))
        let backfill = Ingest(
            verifiers: try AppVerifiers.forApps(of: service.current), store: service.store, metrics: service.metrics)
        let outcomes = backfill.submit(
            appId: "right", bodies: [SignedNotifications.body(other), SignedNotifications.body(notification)]
        ).wait()
        #expect(outcomes.last == .stored(uuid: uuid), "\(outcomes)")
        #expect(try service.store.notification(uuid: uuid)?.appId == "right")
        #expect(try service.store.notification(uuid: uuid)?.state == .applied)
        #expect(Set(try eventPurchases(service, key: "sk_right")) == [purchase, "7100000006"])
    }

    @Test func aFixedEnvironmentAppliesWhatWasHeldAndNothingElse() throws {
        let sandbox = UUID().uuidString.lowercased()
        let otherBundle = UUID().uuidString.lowercased()
        let purchase = "7100000001"
        var service = try RevenueDotService(quietly: try config(environments: ["Production"]))
        try service.start()
        service.waitForHeldNotifications()
        #expect(service.heldNotifications! == (0, 0))
        let connection = try LoopbackConnection(port: service.port)
        let posted = [
            try connection.postNotification(try signer.notification(uuid: sandbox, originalTransactionId: purchase)),
            try connection.postNotification(try signer.notification(uuid: otherBundle, bundleId: "com.other")),
        ]
        #expect(try posted.map { try JSONValue(parsing: $0.body)["status"] } == [.string("held"), .string("held")])
        #expect(try eventPurchases(service).isEmpty)
        service.shutdown()

        // Sandbox accepted from now on: the Sandbox notification is applied at start, the other bundle stays held.
        let lines = Mutex<[String]>([])
        service = try RevenueDotService(
            config: try config(environments: ["Sandbox", "Production"]), log: { line in lines.withLock { $0.append(line) } })
        let restarted = Int64(Date().timeIntervalSince1970 * 1000)
        try service.start()
        service.waitForHeldNotifications()
        #expect(service.heldNotifications! == (1, 1))
        let reapplied = lines.withLock { $0 }.filter { $0.contains(" notification.reapplied ") }
        #expect(reapplied.count == 1 && reapplied[0].hasSuffix(" state=held applied=1 still=1\n"), "\(reapplied)")
        #expect(try eventPurchases(service) == [purchase])
        // Applied now, as a late delivery would be: its events are dated when they were made.
        #expect(
            try events(service).allSatisfy {
                if case .integer(let at)? = $0["event_timestamp_ms"] { at >= restarted } else { false }
            })
        // Apple's retry of it is the same notification, now applied.
        let retry = try LoopbackConnection(port: service.port).postNotification(
            try signer.notification(uuid: sandbox, originalTransactionId: purchase))
        #expect(try JSONValue(parsing: retry.body)["status"] == .string("duplicate"))
        service.shutdown()
        #expect(try stored(sandbox)?.state == .applied)
        #expect(try stored(sandbox)?.stateReason == nil)
        #expect(try stored(otherBundle)?.state == .held)
        #expect(try stored(otherBundle)?.stateReason?.hasPrefix("invalidAppIdentifier") == true)

        // Once applied, it is applied once: the next start finds only the other bundle's.
        service = try RevenueDotService(quietly: try config(environments: ["Sandbox", "Production"]))
        try service.start()
        service.waitForHeldNotifications()
        #expect(service.heldNotifications! == (0, 1))
        #expect(try eventPurchases(service) == [purchase])
        service.shutdown()

        // Replay rebuilds the state with it: it was logged as applied like any notification.
        let replayed = try runCLI(["replay", "--config", directory.path("revenuedot.json")])
        #expect(replayed.status == 0, "\(replayed.output)")
        #expect(replayed.output.contains("applied 1 input(s)"), "\(replayed.output)")
        // Without the app it was applied for, replay says so (and changes nothing).
        let other = try directory.write(
            "other.json",
            """
            {"listen": "127.0.0.1:0", "database": "sqlite:\(directory.path("revenuedot.sqlite"))",
             "apps": [{"id": "other", "bundleId": "com.example.app", "environments": ["Sandbox"],
                       "rootCertificates": ["\(directory.path("root.pem"))"]}]}
            """)
        let refused = try runCLI(["replay", "--config", other])
        #expect(refused.status != 0)
        #expect(refused.output.contains(#"applied for app "demo", which the configuration no longer has"#), "\(refused.output)")
    }

    /// Many held notifications, several in one millisecond and stored out of their arrival order:
    /// each is examined once.
    @Test func everyHeldNotificationIsExaminedOnce() throws {
        let configured = try config(environments: ["Sandbox"])
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        let receivedAt = Int64(Date().timeIntervalSince1970 * 1000)
        let count = 60
        let verifier = try SignedDataVerifier(rootCertificates: [signer.chain.root], policy: .signatureOnly)
        for index in 0..<count {
            let payload = try signer.notification()
            let verified = try verifier.verifyNotification(payload)
            // Three in each millisecond, the newest stored first.
            _ = try store.store(
                NotificationRecord(
                    verified: verified, appId: "demo", signedPayload: payload, receivedAt: receivedAt - Int64(index / 3),
                    state: .held, stateReason: "invalidEnvironment: Sandbox"))
        }
        store.close()
        let service = try RevenueDotService(quietly: configured)
        try service.start()
        service.waitForHeldNotifications()
        #expect(service.heldNotifications! == (count, 0))
        service.shutdown()
        let after = try Store(path: directory.path("revenuedot.sqlite"))
        defer { after.close() }
        #expect(try after.notificationUUIDs(appId: "demo", state: .applied).count == count)
        #expect(try after.notificationUUIDs(appId: "demo", state: .held).isEmpty)
    }

    /// A pass stopped before it looked at them (the server is stopping) counts them still held,
    /// not as if there were none: they are taken up at the next start.
    @Test func aStoppedPassCountsWhatItDidNotLookAtAsStillHeld() throws {
        let configured = try config(environments: ["Sandbox"])
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let verifier = try SignedDataVerifier(rootCertificates: [signer.chain.root], policy: .signatureOnly)
        for _ in 0..<5 {
            let payload = try signer.notification()
            _ = try store.store(
                NotificationRecord(
                    verified: try verifier.verifyNotification(payload), appId: "demo", signedPayload: payload,
                    receivedAt: Int64(Date().timeIntervalSince1970 * 1000), state: .held,
                    stateReason: "invalidEnvironment: Sandbox"))
        }
        let held = HeldNotifications(
            verifiers: try AppVerifiers.forApps(of: configured), store: store,
            handOff: LedgerHandOff(config: configured, cache: nil), clock: Date.init)
        held.stop()
        let outcome = try held.reapply()
        #expect(outcome.applied == 0)
        #expect(outcome.stillHeld == 5)
        #expect(try store.notificationUUIDs(appId: "demo", state: .held).count == 5)
    }

    /// A notification stored failed (its hand-off threw when it arrived) is tried again at the
    /// next start and applied; one whose app is no longer configured stays failed. Nothing else
    /// ever took failed notifications up.
    @Test func failedNotificationsAreTriedAgainAtTheNextStart() throws {
        let configured = try config(environments: ["Sandbox"])
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        let verifier = try SignedDataVerifier(rootCertificates: [signer.chain.root], policy: .signatureOnly)
        let (retried, orphan) = (UUID().uuidString.lowercased(), UUID().uuidString.lowercased())
        for (uuid, app) in [(retried, "demo"), (orphan, "gone")] {
            let payload = try signer.notification(uuid: uuid, environment: "Sandbox")
            _ = try store.store(
                NotificationRecord(
                    verified: try verifier.verifyNotification(payload), appId: app, signedPayload: payload,
                    receivedAt: Int64(Date().timeIntervalSince1970 * 1000), state: .failed,
                    stateReason: "hand-off failed: disk I/O error"))
        }
        store.close()
        let service = try RevenueDotService(quietly: configured)
        try service.start()
        service.waitForHeldNotifications()
        #expect(service.failedNotifications! == (1, 1))
        service.shutdown()
        #expect(try stored(retried)?.state == .applied)
        #expect(try stored(orphan)?.state == .failed)
        #expect(try stored(orphan)?.stateReason == "hand-off failed: disk I/O error")
    }

    /// A failed Xcode notification stored before unsigned ids took their environment's name
    /// (`xcode:<uuid>`) keeps the id it was stored under when it is applied again: verifying it
    /// anew names it differently, and the row must still be found.
    @Test func aFailedUnsignedNotificationKeepsItsStoredIdWhenApplied() throws {
        let configured = try config(environments: ["Sandbox", "Xcode"])
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let verifiers = try AppVerifiers.forApps(of: configured)
        let uuid = UUID().uuidString.lowercased()
        let payload = try SignedNotifications(chain: try TestChain(name: "Xcode")).notification(
            uuid: uuid, environment: "Xcode")
        _ = try store.store(
            NotificationRecord(
                verified: try #require(verifiers["demo"]).strict.verifyNotification(payload), appId: "demo",
                signedPayload: payload, receivedAt: Int64(Date().timeIntervalSince1970 * 1000), state: .failed,
                stateReason: "hand-off failed: disk I/O error", storedAs: uuid))
        let held = HeldNotifications(
            verifiers: verifiers, store: store, handOff: LedgerHandOff(config: configured, cache: nil), clock: Date.init)
        #expect(try held.reapply(.failed) == HeldNotifications.Outcome(applied: 1))
        #expect(try store.notification(uuid: uuid)?.state == .applied)
        #expect(try store.notification(uuid: "xcode:\(uuid)") == nil)
    }
}
