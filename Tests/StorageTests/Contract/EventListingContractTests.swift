import Foundation
import Subscriptions
import Testing

@testable import Storage

/// `EventRows.list` by customer on both engines: any id of a customer lists all of its events,
/// those made under each of its ids before they became one customer included.
@Suite struct EventListingContractTests {
    typealias S = StoreUnderTest

    /// The ids of the events `filter` lists, oldest first.
    static func listed(_ under: S, _ filter: EventFilter) throws -> [String] {
        try under.store.read { (rows) throws(StoreError) in try EventRows.list(filter, from: rows) }.reversed().map(\.id)
    }

    static func alias(_ appUserId: String, _ newAppUserId: String, at atMs: Int64, in under: S) throws {
        try under.write { transaction in
            try LedgerInputs.keepAndApply(
                .customerAction(.aliased(appUserId: appUserId, newAppUserId: newAppUserId)), app: S.app, atMs: atMs,
                in: transaction)
        }
    }

    @Test(arguments: ContractEngine.allCases)
    func anyIdOfACustomerListsAllItsEvents(_ engine: ContractEngine) throws {
        let under = try S(engine)
        for n in 1...4 { try under.subscribe(n, original: "\(n)00") }
        let own = try (1...4).map { n in try Self.listed(under, EventFilter(customer: S.customer(n))) }
        #expect(own.map(\.count) == [1, 1, 1, 1], "\(own)")
        // customer(3) joins customer(1), then customer(1), with it, joins customer(2); customer(2)
        // also takes an id nothing was made under.
        try Self.alias(S.customer(1), S.customer(3), at: S.t0 + 1000, in: under)
        try Self.alias(S.customer(2), S.customer(1), at: S.t0 + 2000, in: under)
        try Self.alias(S.customer(2), "at-work", at: S.t0 + 3000, in: under)
        #expect(try under.view("at-work")?.customer.appUserId == S.customer(2))
        let merged = own[0] + own[1] + own[2]
        for id in [S.customer(2), S.customer(1), S.customer(3), "at-work"] {
            #expect(try Set(Self.listed(under, EventFilter(customer: id))) == Set(merged), "\(id)")
            #expect(try Set(Self.listed(under, EventFilter(customer: id, appId: S.appId))) == Set(merged), "\(id)")
            #expect(try Self.listed(under, EventFilter(customer: id, appId: "other")).isEmpty, "\(id)")
        }
        // Pages of one customer's events hold each once.
        let first = try Self.listed(under, EventFilter(customer: S.customer(3), limit: 2))
        let rest = try Self.listed(under, EventFilter(customer: S.customer(3), limit: 2, offset: 2))
        #expect(Set(first + rest) == Set(merged) && first.count == 2 && rest.count == 1)
        #expect(try Self.listed(under, EventFilter(customer: S.customer(4))) == own[3])
        #expect(try Self.listed(under, EventFilter(customer: "nobody")).isEmpty)
    }
}
