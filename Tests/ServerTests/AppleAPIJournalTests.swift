import AppStore
import AppStoreServerAPI
import Foundation
import Testing

@testable import AppStoreServerAPISimulator
@testable import Server
@testable import Tools

/// What `simulate` stories leave for `simulate apple-api`: the notifications, delivered or not,
/// and the transactions, read back line by line as they are appended.
@Suite("The simulated App Store's journal")
struct AppleAPIJournalTests {
    @Test func storiesAreServedAsApplesHistory() throws {
        let world = try AppleAPIWorld()
        let base = URL(fileURLWithPath: world.directory.path("base"))
        let journal = AppleAPIJournal(base: base)
        let notifications = try world.subscription(original: "4000000001", user: "u", renewals: 2, boughtDaysAgo: 2)
        journal.recordTransaction(
            .object(["transactionId": .string("t1"), "originalTransactionId": .string("t1")]), bundleId: "com.example.app",
            account: "u")
        journal.recordRenewalInfo(
            .object(["originalTransactionId": .string("t1"), "autoRenewStatus": .integer(0)]), bundleId: "com.example.app",
            originalTransactionId: "t1")
        for (index, signed) in notifications.enumerated() {
            journal.recordNotification(signed, bundleId: "com.example.app", delivered: index == 0)
        }
        let store = try SimulatedAppStore(
            apps: [SimulatedAppStore.App(bundleId: "com.example.app", appAppleId: 1234, environment: .sandbox)],
            chain: world.signer.chain)
        var offset = journal.load(into: store, from: 0)
        #expect(offset == (try FileManager.default.attributesOfItem(atPath: journal.file.path)[.size] as? UInt64))
        #expect(store.state.withLock { $0.notifications["com.example.app"]?.map(\.delivered) } == [true, false, false])
        // A line still being written is left for the next read.
        let handle = try #require(FileHandle(forWritingAtPath: journal.file.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"kind":"notification","bundleId":"com.e"#.utf8))
        try handle.close()
        let partial = journal.load(into: store, from: offset)
        #expect(partial == offset)
        offset = partial
        #expect(store.state.withLock { $0.transactions["com.example.app"]?.count } == 1)
        #expect(store.state.withLock { $0.renewalInfo["t1"]?["autoRenewStatus"] } == .integer(0))
        // The file is private: it holds signed purchases.
        let mode = try FileManager.default.attributesOfItem(atPath: journal.file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
