import Foundation
import Synchronization

@testable import Storage

/// A fresh directory for one test's database file, removed when the test is done with it.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("storage-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    var databasePath: String { path + "/revenuedot.sqlite" }
}

/// A notification with only the required fields set.
func makeRecord(
    _ uuid: String, appId: String = "demo", type: String = "DID_RENEW", receivedAt: Int64 = 1_700_000_000_000
) -> NotificationRecord {
    NotificationRecord(
        notificationUUID: uuid, appId: appId, notificationType: type, receivedAt: receivedAt,
        signedPayload: "eyJhbGciOiJFUzI1NiJ9.\(uuid).c2lnbmF0dXJl")
}

/// Runs `body(i)` for every `i` in `0..<count` on `threads` dedicated threads and waits for all.
///
/// Dedicated threads rather than `DispatchQueue.concurrentPerform`, whose width is the core count
/// (2 here): `store` blocks, so only many threads produce the many concurrent callers group commit
/// exists for.
func concurrently(_ count: Int, threads: Int = 64, _ body: @escaping @Sendable (Int) -> Void) {
    let next = Atomic<Int>(0)
    let group = DispatchGroup()
    for _ in 0..<threads {
        group.enter()
        Thread {
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < count else { break }
                body(index)
            }
            group.leave()
        }.start()
    }
    group.wait()
}

/// Rows from a separate connection to the file, to check what really reached the database.
func rawQuery(_ path: String, _ sql: String, _ arguments: [SQLValue] = []) throws -> [[SQLValue]] {
    try SQLiteConnection(path: path, role: .reader).query(sql, arguments)
}

/// Runs `sql` on a separate writing connection.
func rawExecute(_ path: String, _ sql: String) throws {
    try SQLiteConnection(path: path, role: .writer).execute(script: sql)
}

/// A thread-safe list for observations made on other threads.
final class Collected<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    func append(_ item: Element) {
        items.withLock { $0.append(item) }
    }

    var all: [Element] { items.withLock { $0 } }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
}
