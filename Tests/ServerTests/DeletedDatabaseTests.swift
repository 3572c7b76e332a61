import Foundation
import LoopbackClient
import Synchronization
import Testing

@testable import Server
@testable import Tools

/// The database deleted while the server runs (a cleanup script, a wrong `rm`): SQLite writes on
/// through its open descriptors to a file nobody will read again. Nothing may be answered 200
/// from then on: Apple gets 503 and retries, the health check fails, and the log says so once.
@Suite struct DeletedDatabaseTests {
    @Test func notificationsAre503AndHealthFailsAndTheLogSaysSoOnce() throws {
        let fixture = try ServerFixture()
        let lines = Mutex<[String]>([])
        let service = try RevenueDotService(config: try fixture.config(), log: { line in lines.withLock { $0.append(line) } })
        try service.start()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signer = fixture.signer
        #expect(try connection.postNotification(try signer.notification(uuid: UUID().uuidString.lowercased())).status == 200)
        for suffix in ["", "-wal", "-shm"] { try FileManager.default.removeItem(atPath: fixture.databasePath + suffix) }

        for _ in 0..<3 {
            let response = try connection.postNotification(try signer.notification(uuid: UUID().uuidString.lowercased()))
            #expect(response.status == 503)
            // The cause is for the log: the answer names no path.
            #expect(String(decoding: response.body, as: UTF8.self).contains("storage_unavailable"))
            #expect(!String(decoding: response.body, as: UTF8.self).contains("revenuedot.sqlite"))
        }
        #expect(try connection.request("GET", "/health").status == 503)
        let logged = lines.withLock { $0 }.filter { $0.contains(" storage.") }
        #expect(logged.count == 1, "\(logged)")
        #expect(logged.first?.contains(" error storage.failing notifications are answered 503") == true, "\(logged)")
        #expect(logged.first?.contains("revenuedot.sqlite is gone") == true, "\(logged)")
    }

    /// An idle server whose database was deleted is unhealthy at once, not only once something
    /// has tried to commit.
    @Test func healthFailsWhileIdle() throws {
        let fixture = try ServerFixture()
        let service = try RevenueDotService(config: try fixture.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        #expect(try connection.request("GET", "/health").status == 200)
        try FileManager.default.removeItem(atPath: fixture.databasePath)
        let health = try connection.request("GET", "/health")
        #expect(health.status == 503)
        // RevenueCat's path for the SDK's diagnostics makes the same check.
        #expect(try connection.request("GET", "/v1/health").status == 503)
        #expect(String(decoding: health.body, as: UTF8.self).contains("storage"), "\(health.text)")
        // Reads of the old file still work; a gauge says storage is failing.
        let metrics = try connection.request("GET", "/metrics").text
        #expect(metrics.contains("revenuedot_storage_failing 1\n"))
        #expect(metrics.contains("revenuedot_storage_readable 1\n"))
    }

    /// One line when failures start and one when they stop, however many notifications each covers.
    @Test func alarmSaysEachChangeOnce() {
        let lines = Mutex<[String]>([])
        let clock = Date(timeIntervalSince1970: 1_800_000_000)
        let now = Mutex<Int64>(1_000)
        let alarm = StorageAlarm(
            log: Log(clock: { clock }, sink: { line in lines.withLock { $0.append(line) } }), nowMs: { now.withLock { $0 } })
        alarm.stored()
        alarm.failed("disk full")
        alarm.failed("disk full")
        alarm.stored()
        alarm.stored()
        alarm.failed("locked")
        // A store failing after a failed health check is said too, once; a check after it is not.
        alarm.stored()
        alarm.failed("busy", healthCheck: true)
        alarm.failed("busy", healthCheck: true)
        alarm.failed("full")
        alarm.failed("busy", healthCheck: true)
        alarm.failed("full")
        // Stores while the check fails (a database that writes but cannot be read, all its
        // connections taken) are not a recovery: only a passing check is.
        alarm.stored()
        alarm.failed("busy", healthCheck: true)
        alarm.stored()
        alarm.checkPassed()
        alarm.failed("too many clients", healthCheck: true)
        for _ in 0..<3 {
            alarm.stored()
            alarm.failed("too many clients", healthCheck: true)
        }
        alarm.checkPassed()
        alarm.checkPassed()
        // With no probe since, a failed check no longer outweighs stores.
        alarm.failed("busy", healthCheck: true)
        alarm.stored()
        now.withLock { $0 += StorageAlarm.checkOutweighsStoresMs }
        alarm.stored()
        let time = "2027-01-15T08:00:00.000Z"
        let refusing =
            "\(time) error storage.failing notifications are answered 503 until storage works again (Apple retries them)"
        let recovered = "\(time) info storage.recovered storage works again: notifications are stored\n"
        let checkFailed =
            "\(time) error storage.failing storage failed the health check: /health answers 503 until it passes "
            + "(notifications wait for storage, and are answered 503 if it fails them)"
        let expected: [String] = [
            refusing + " error=\"disk full\"\n", recovered, refusing + " error=locked\n", recovered,
            checkFailed + " error=busy\n", refusing + " error=full\n", recovered,
            checkFailed + " error=\"too many clients\"\n", recovered, checkFailed + " error=busy\n", recovered,
        ]
        #expect(lines.withLock { $0 } == expected)
    }
}
