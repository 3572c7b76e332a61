import Testing

@testable import Storage

/// The reject log on each engine: every reject counted by status, the newest kept, and a
/// sender's NUL stored as U+FFFD rather than stopping the log's writes.
@Suite struct RejectLogContractTests {
    @Test(arguments: ContractEngine.allCases)
    func rejectsAreCountedAndKept(engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        defer { under.store.close() }
        under.store.recordReject(Reject(appId: "demo", status: "verificationFailure", reason: "bad \u{0} alg", at: 1))
        #expect(try under.store.rejectLog().recent.count == 1)
        // Written later, in one batch with its counts: the conflict on the status adds up.
        for index in 2...4 {
            under.store.recordReject(Reject(appId: "demo", status: "verificationFailure", reason: "r\(index)", at: Int64(index)))
        }
        under.store.close()
        let reopened = try under.anotherNode()
        defer { reopened.close() }
        let log = try reopened.rejectLog()
        #expect(log.counts == ["verificationFailure": 4], "\(log.counts)")
        #expect(log.recent.map(\.at) == [4, 3, 2, 1])
        #expect(log.recent.last?.reason == "bad \u{FFFD} alg")
    }
}
