import Foundation
import LoopbackClient
import Synchronization
import Testing

@testable import Server
@testable import Storage
@testable import Tools

/// A server on a database file with damaged pages: it says so once, keeps `/health` red and
/// never says storage works again, however many writes miss the damage.
@Suite struct DamagedDatabaseServeTests {
    @Test func notificationsAre503HealthStaysRedAndTheLogSaysDamagedOnce() throws {
        let fixture = try ServerFixture()
        let signer = fixture.signer
        do {
            let service = try RevenueDotService(config: try fixture.config(), log: { _ in })
            try service.start()
            let connection = try LoopbackConnection(port: service.port)
            #expect(try connection.postNotification(try signer.notification(uuid: UUID().uuidString.lowercased())).status == 200)
            service.shutdown()
        }
        // The index of notification UUIDs overwritten, with everything in the file itself.
        try SQLiteConnection(path: fixture.databasePath, role: .writer).execute(script: "PRAGMA wal_checkpoint(TRUNCATE);")
        let reader = try SQLiteConnection(path: fixture.databasePath, role: .reader)
        let root = try #require(
            try reader.query("SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_notifications_1'").first?.first?
                .integerValue)
        let pageSize = try #require(try reader.query("PRAGMA page_size").first?.first?.integerValue)
        let file = try #require(FileHandle(forWritingAtPath: fixture.databasePath))
        try file.seek(toOffset: UInt64((root - 1) * pageSize))
        try file.write(contentsOf: Data(repeating: 0xa5, count: Int(pageSize)))
        try file.close()

        let lines = Mutex<[String]>([])
        let service = try RevenueDotService(config: try fixture.config(), log: { line in lines.withLock { $0.append(line) } })
        try service.start()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        for _ in 0..<2 {
            #expect(try connection.postNotification(try signer.notification(uuid: UUID().uuidString.lowercased())).status == 503)
            #expect(try connection.request("GET", "/health").status == 503)
        }
        let logged = lines.withLock { $0 }.filter { $0.contains(" storage.") }
        #expect(logged.count == 1, "\(logged)")
        #expect(logged.first?.contains(" error storage.failing the database file is damaged") == true, "\(logged)")
        #expect(logged.first?.contains("malformed") == true, "\(logged)")
        let metrics = try connection.request("GET", "/metrics").text
        #expect(metrics.contains("revenuedot_storage_failing 1"), "\(metrics)")
    }

    /// Once damaged, nothing stored later says storage works again: writes that miss the damaged
    /// pages succeed.
    @Test func aDamagedFileIsNotRecoveredByAStore() {
        let lines = Mutex<[String]>([])
        let alarm = StorageAlarm(log: Log(sink: { line in lines.withLock { $0.append(line) } }))
        alarm.failed("malformed", damaged: true)
        alarm.stored()
        alarm.failed("locked")
        alarm.failed("busy", healthCheck: true)
        alarm.failed("malformed", damaged: true)
        alarm.stored()
        #expect(alarm.isFailing)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 1, "\(logged)")
        #expect(logged.first?.contains("storage.failing the database file is damaged") == true, "\(logged)")
    }
}
