import Foundation
import Subscriptions
import Testing

@_spi(StoreSQL) @testable import Storage

/// How tracking writes anonymous ids is the database's choice, made once (`DatabaseSettings`):
/// RevenueCat's form with a secret key of the database's own when it is new, RevenueDot's own
/// when it has history from before the choice; every node, restart and replay keeps it.
@Suite("Storage contract: anonymous ids")
struct AnonymousIdContractTests {
    typealias S = StoreUnderTest

    /// A subscription bought with no `appAccountToken`: tracking gives it an anonymous customer.
    static func subscribeUnnamed(_ store: Store, original: String) throws {
        var transaction = S.transaction(
            original, original: original, purchase: S.t0, expires: S.t0 + 30 * S.day, customer: S.customer(0))
        transaction.appAccountToken = nil
        _ = try store.store(
            S.record(
                .subscribed, .initialBuy, uuid: "unnamed-\(original)", at: S.t0, transaction: transaction,
                renewal: S.renewal(original: original, signed: S.t0)))
    }

    static func owner(of original: String, in store: Store) throws -> String? {
        try store.read { (rows) throws(StoreError) in
            try rows.query(
                "SELECT owner FROM purchases WHERE app_id = ? AND purchase_key = ?", [.text(S.appId), .text("s:" + original)]
            ).first?.first?.textValue
        }
    }

    static func setting(_ store: Store) throws -> [[SQLValue]] {
        try store.read { (rows) throws(StoreError) in try rows.query("SELECT name, value FROM database_settings", []) }
    }

    @Test(arguments: ContractEngine.allCases)
    func aNewDatabaseWritesRevenueCatsFormUnderAKeyOfItsOwn(_ engine: ContractEngine) throws {
        let under = try S(engine)
        try Self.subscribeUnnamed(under.store, original: "300")
        let owner = try #require(try Self.owner(of: "300", in: under.store))
        #expect(owner.wholeMatch(of: /\$RCAnonymousID:[0-9a-f]{32}/) != nil, "\(owner)")
        // Another node, and a replay, keep the key: the same purchase, the same customer.
        let chosen = try Self.setting(under.store)
        let node = try under.anotherNode()
        try Self.subscribeUnnamed(node, original: "301")
        #expect(try Self.setting(node) == chosen)
        node.close()
        #expect(try Replay.replay(apps: [S.appId: S.app], verifiers: [:], store: under.store).inputs == 2)
        #expect(try Self.owner(of: "300", in: under.store) == owner)
        #expect(try Self.owner(of: "301", in: under.store)?.hasPrefix("$RCAnonymousID:") == true)
        // Another database has a key of its own: the id says nothing of the purchase.
        let other = try S(engine)
        try Self.subscribeUnnamed(other.store, original: "300")
        let elsewhere = try #require(try Self.owner(of: "300", in: other.store))
        #expect(elsewhere != owner && elsewhere.hasPrefix("$RCAnonymousID:"))
    }

    /// A database from before the choice (its `database_settings` empty after migration 29, its
    /// inputs applied) keeps RevenueDot's ids, so its customers keep theirs.
    @Test(arguments: ContractEngine.allCases)
    func aDatabaseWithHistoryKeepsRevenueDotsForm(_ engine: ContractEngine) throws {
        let under = try S(engine)
        try under.subscribe(1, original: "310")
        try under.write { transaction in try transaction.execute("DELETE FROM database_settings") }
        under.store.close()
        let reopened = try under.anotherNode()
        defer { reopened.close() }
        #expect(try Self.setting(reopened) == [[.text("anonymous_ids"), .text("revenuedot")]])
        try Self.subscribeUnnamed(reopened, original: "311")
        #expect(try Self.owner(of: "311", in: reopened) == "$RevenueDotAnonymous:311")
        #expect(try Replay.replay(apps: [S.appId: S.app], verifiers: [:], store: reopened).inputs == 2)
        #expect(try Self.owner(of: "311", in: reopened) == "$RevenueDotAnonymous:311")
    }
}
