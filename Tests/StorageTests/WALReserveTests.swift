import Foundation
import Testing

@testable import Storage

@Suite struct WALReserveTests {
    private static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
    }

    /// The database and WAL files as a crash would leave them, opened elsewhere: SQLite rebuilds
    /// its WAL index from the WAL file alone, frame by frame.
    private static func crashCopy(of databasePath: String) throws -> TemporaryDirectory {
        let copy = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: databasePath, toPath: copy.databasePath)
        try FileManager.default.copyItem(atPath: databasePath + "-wal", toPath: copy.databasePath + "-wal")
        return copy
    }

    /// A writer connection to a new file in `directory` whose WAL holds `rows` committed rows of
    /// table `t` (`prefix` and the row's number), never checkpointed, and the WAL's path.
    private static func walWithRows(
        _ rows: Int, prefix: String = "", in directory: TemporaryDirectory
    ) throws -> (SQLiteConnection, String) {
        let connection = try SQLiteConnection(path: directory.databasePath, role: .writer)
        try connection.execute(script: "PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v TEXT NOT NULL);")
        for index in 0..<rows { try connection.run("INSERT INTO t (v) VALUES (?)", [.text("\(prefix)\(index)")]) }
        return (connection, try #require(connection.walPath))
    }

    @Test func theStoreOpensWithTheWALAtTheSizeARestartCheckpointFindsIt() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, reservesWAL: true, exclusive: true)
        let full = WALReserve.bytes(frames: Checkpointer.restartFrames, pageSize: 4096)
        #expect(full == 65 << 20)  // 32 + 16,384 × 4,120 bytes, rounded up to MiB
        #expect(Self.size(directory.databasePath + "-wal") == full)

        concurrently(200, threads: 16) { index in _ = try? store.store(makeRecord("n\(index)")) }
        // Written into the reserve, not past it.
        #expect(Self.size(directory.databasePath + "-wal") == full)
        let crashed = try Self.crashCopy(of: directory.databasePath)
        #expect(try rawQuery(crashed.databasePath, "SELECT count(*) FROM notifications") == [[.integer(200)]])
        store.close()

        // The TRUNCATE checkpoint at close gives the space back; a new store reserves it again.
        #expect(Self.size(directory.databasePath + "-wal") <= 0)
        let reopened = try Store(path: directory.databasePath, reservesWAL: true, exclusive: true)
        #expect(Self.size(directory.databasePath + "-wal") == full)
        // A command reading beside the server (not exclusive) leaves the server's reserve alone
        // when it closes: it used to checkpoint with TRUNCATE, and the WAL went back to 0 bytes.
        let reader = try Store(path: directory.databasePath)
        #expect(try !reader.notifications(NotificationFilter()).isEmpty)
        reader.close()
        #expect(Self.size(directory.databasePath + "-wal") == full)
        reopened.close()
        // A store for a command that writes a little leaves the WAL to grow as it is written.
        let small = try Store(path: directory.databasePath)
        defer { small.close() }
        #expect(Self.size(directory.databasePath + "-wal") < 1 << 20)
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM notifications") == [[.integer(200)]])
    }

    /// Frames already in the WAL stay as they were, SQLite writes the next ones over the zeros,
    /// and recovery after a crash finds every committed row and stops at the zeros.
    @Test func fillingKeepsTheFramesAndRecoveryStopsAtTheZeros() throws {
        let directory = try TemporaryDirectory()
        let (connection, walPath) = try Self.walWithRows(20, prefix: "before ", in: directory)
        let framed = Self.size(walPath)
        #expect(framed > 32)
        let before = try #require(FileManager.default.contents(atPath: walPath))

        #expect(WALReserve.fill(walPath: walPath, to: 4 << 20, holding: connection) == nil)
        #expect(Self.size(walPath) == 4 << 20)
        let after = try #require(FileManager.default.contents(atPath: walPath))
        #expect(after.prefix(framed) == before)
        #expect(after.dropFirst(framed).allSatisfy { $0 == 0 })
        #expect(!connection.isInTransaction)

        for index in 0..<20 { try connection.run("INSERT INTO t (v) VALUES (?)", [.text("after \(index)")]) }
        #expect(Self.size(walPath) == 4 << 20)
        let crashed = try Self.crashCopy(of: directory.databasePath)
        #expect(try rawQuery(crashed.databasePath, "SELECT count(*) FROM t") == [[.integer(40)]])
        #expect(try rawQuery(crashed.databasePath, "SELECT v FROM t ORDER BY rowid DESC LIMIT 1") == [[.text("after 19")]])
    }

    @Test func aWALAlreadyThatLargeIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let (connection, walPath) = try Self.walWithRows(40, in: directory)
        let before = try #require(FileManager.default.contents(atPath: walPath))

        #expect(WALReserve.fill(walPath: walPath, to: before.count - 1, holding: connection) == nil)
        #expect(FileManager.default.contents(atPath: walPath) == before)
    }

    /// Without the write lock nothing is written: another writer could be appending frames.
    @Test func withoutTheWriteLockTheFileIsNotTouched() throws {
        let directory = try TemporaryDirectory()
        let (connection, walPath) = try Self.walWithRows(0, in: directory)
        let before = Self.size(walPath)
        // A transaction already open on the connection: BEGIN IMMEDIATE fails at once.
        try connection.execute(script: "BEGIN IMMEDIATE; INSERT INTO t (v) VALUES ('open');")

        let error = WALReserve.fill(walPath: walPath, to: 4 << 20, holding: connection)
        #expect(error != nil)
        #expect(Self.size(walPath) == before)
        #expect(connection.isInTransaction)  // the caller's transaction is not the reserve's to end
        try connection.execute(script: "ROLLBACK;")
    }
}
