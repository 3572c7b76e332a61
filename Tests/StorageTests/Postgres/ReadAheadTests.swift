import Foundation
import Subscriptions
import Testing
import Threads

@testable import Storage

/// On PostgreSQL the writer reads the first rows of every new notification's slice in one round
/// trip (`PreparedLedgerHandOff`); a notification uses them only while nothing applied before it
/// in the transaction wrote them (`LedgerTouch`).
@Suite struct ReadAheadTests {
    typealias S = StoreUnderTest

    /// Three customers' subscriptions, each bought then renewed three times, and a second
    /// subscription of customer 1; in rounds: every first notification, then every second, ...
    static func records() throws -> [NotificationRecord] {
        let all = try SeveralNodesTests.records()
        var byCustomer = SeveralNodesTests.customers.prefix(3).map { n in
            all.filter { $0.transactionId?.hasPrefix("\(n)00") == true }
        }
        let second = S.transaction(
            "900", original: "900", purchase: S.t0 + 1, expires: S.t0 + 30 * S.day, customer: S.customer(1))
        byCustomer.append([
            try S.record(.subscribed, .initialBuy, uuid: "sub-900", at: S.t0 + 1, transaction: second),
            try S.record(.didChangeRenewalStatus, .autoRenewDisabled, uuid: "off-900", at: S.t0 + 2, transaction: second),
        ])
        return (0..<4).flatMap { round in byCustomer.compactMap { round < $0.count ? $0[round] : nil } }
    }

    static func events(_ store: Store) throws -> [String] {
        try store.read { (rows) throws(StoreError) in
            try EventRows.list(EventFilter(appId: S.appId, limit: 1000), from: rows)
        }.map { "\($0.customer ?? "-") \($0.sequence ?? 0) \($0.type)" }.sorted()
    }

    /// Applied by one prepared hand-off inside one transaction, they give the state a store that
    /// applies them one by one gives; only each purchase's first notification (whose purchase and
    /// customer nothing wrote before it) uses its rows read ahead.
    @Test(.enabled(if: PostgresTestDatabase.isAvailable)) func oneTransactionGivesOneByOnesState() throws {
        let records = try Self.records()
        let expected = try S(.sqlite)
        for record in records { #expect(try expected.store.store(record) == .stored) }

        let postgres = try S(.postgres)
        let handOff = SeveralNodesTests.handOff()
        let used = Locked(0)
        try postgres.store.write { transaction in
            let prepared = try handOff.prepared(for: records, in: transaction)
            let readAhead = try #require(prepared as? PreparedLedgerHandOff)
            for record in records { #expect(try prepared.handOff(record, in: transaction) == .applied) }
            used.withLock { $0 = readAhead.readAheadsUsed }
        }
        #expect(used.value == 3, "the first notification of customers 1, 2 and 3; not customer 1's second subscription")
        #expect(try SeveralNodesTests.views(postgres.store) == SeveralNodesTests.views(expected.store))
        #expect(try Self.events(postgres.store) == Self.events(expected.store))
        #expect(try Self.events(postgres.store).count >= records.count)
    }

    /// SQLite reads in-process: nothing to gain, the hand-off reads at each notification's turn.
    @Test func sqliteReadsAtEachTurn() throws {
        let sqlite = try S(.sqlite)
        let handOff = SeveralNodesTests.handOff()
        let records = try Self.records()
        try sqlite.store.write { (transaction) throws in
            let prepared = try handOff.prepared(for: records, in: transaction)
            #expect(prepared is LedgerHandOff)
        }
    }

    /// Whether a read made before some inputs still holds for the next one, as a table.
    @Test func touchedRowsDecideWhetherReadsStillHold() throws {
        let records = try Self.records()
        func input(_ uuid: String) throws -> Ledger.Input {
            .notificationReceived(try #require(records.first { $0.notificationUUID == uuid }).verifiedFacts())
        }
        let ledger = Ledger(configuration: S.app.configuration)
        var customer = CustomerState(appUserId: S.customer(1), firstSeenMs: S.t0)
        customer.aliases = [S.customer(1), "$RCAnonymousID:a"]
        var withCustomer = ledger
        withCustomer.customers[S.customer(1)] = customer
        withCustomer.subscriptions["100"] = SubscriptionState(originalTransactionId: "100")
        let touched = LedgerTouch(input: try input("sub-100"), before: ledger, after: withCustomer)
        #expect(touched.purchases == ["s:100"])
        #expect(touched.customers == [S.customer(1), "$RCAnonymousID:a"])
        let cases: [(String, Bool)] = [
            ("renew-100-1", false),  // the same purchase
            ("sub-900", false),  // another purchase of the same customer
            ("sub-200", true),  // another customer's purchase
        ]
        for (uuid, holds) in cases {
            #expect(touched.leavesFirstRoundOf(try input(uuid)) == holds, "\(uuid)")
        }
        #expect(LedgerTouch().leavesFirstRoundOf(try input("renew-100-1")))
    }
}
