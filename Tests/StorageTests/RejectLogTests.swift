import Testing

@testable import Storage

@Suite struct RejectLogTests {
    @Test func countsEveryRejectAndKeepsTheNewestHundred() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore(path: directory.databasePath)
        defer { store.close() }

        for index in 0..<150 {
            let status = index.isMultiple(of: 3) ? "invalidCertificate" : "verificationFailure"
            store.recordReject(Reject(appId: "demo", status: status, reason: "reject \(index)", at: Int64(index)))
        }
        // The health check goes through the same queue, behind the rejects: once it answers, they are committed.
        try store.healthCheck()
        let log = try store.rejectLog()

        #expect(log.counts == ["invalidCertificate": 50, "verificationFailure": 100])
        #expect(log.recent.count == 100)
        #expect(log.recent.first == Reject(appId: "demo", status: "verificationFailure", reason: "reject 149", at: 149))
        #expect(log.recent.map(\.at) == Array((50..<150).reversed()).map(Int64.init))
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM rejects") == [[.integer(100)]])
    }
}
