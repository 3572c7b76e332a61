import Foundation
import JSON
import Subscriptions
import Testing

@_spi(StoreSQL) @testable import Storage

/// A replay under rules that make an event more, or one fewer, early in a customer's history
/// keeps the `sequence` every event made again was sent with; new events take numbers after
/// every number the customer's events had, and the customer counts on from there.
@Suite struct ReplaySequenceContractTests {
    typealias S = StoreUnderTest

    /// customer(1)'s INITIAL_PURCHASE (1) and, once its period ended, EXPIRATION (2).
    static func lapsed(_ engine: ContractEngine) throws -> StoreUnderTest {
        let under = try S(engine)
        let expires = S.t0 + 30 * S.day
        try under.subscribe(1, original: "100", expires: expires, autoRenew: false)
        let later = expires + SubscriptionState.longestRenewalNoticeWaitMs
        try under.write { transaction in
            for timer in try PendingTimers.due(atMs: later, limit: 10, from: transaction) {
                try LedgerInputs.keepAndApply(.dueTimer(timer), app: S.app, atMs: later, in: transaction)
            }
        }
        #expect(try numbers(under) == ["INITIAL_PURCHASE 1 1", "EXPIRATION 2 2"])
        return under
    }

    /// Each event as `TYPE column-sequence json-sequence`, oldest first.
    static func numbers(_ under: StoreUnderTest) throws -> [String] {
        try under.events().map { listing in
            let json = try JSONValue(parsing: Data(listing.json.utf8))
            let inBody: String
            if case .integer(let number)? = json["sequence"] { inBody = "\(number)" } else { inBody = "none" }
            return "\(listing.type) \(listing.sequence ?? -1) \(inBody)"
        }
    }

    static func lastSequence(_ under: StoreUnderTest) throws -> Int64? {
        try under.view(S.customer(1))?.customer.lastSequence
    }

    static func setSequence(_ type: String, _ sequence: Int64, in transaction: WriteTransaction) throws {
        let json = try transaction.query("SELECT json FROM events WHERE type = ?", [.text(type)]).first?.first?.textValue
        var event = try Event(json: JSONValue(parsing: Data((json ?? "{}").utf8)))
        event.sequence = sequence
        try transaction.execute(
            "UPDATE events SET sequence = ?, json = ? WHERE type = ?",
            [.integer(sequence), .text(try LedgerRows.encode(event)), .text(type)])
    }

    static func setLastSequence(_ sequence: Int64, _ under: StoreUnderTest) throws {
        guard var customer = try under.view(S.customer(1))?.customer else { return }
        customer.lastSequence = sequence
        let json = try LedgerRows.encode(customer)
        try under.write { transaction in
            try transaction.execute(
                "UPDATE customers SET json = ? WHERE app_id = ? AND app_user_id = ?",
                [.text(json), .text(S.appId), .text(S.customer(1))])
        }
    }

    /// An earlier build made no INITIAL_PURCHASE: the EXPIRATION went out as 1. Replayed, it is
    /// still 1; the INITIAL_PURCHASE new to the replay is 2, and the next event will be 3.
    @Test(arguments: ContractEngine.allCases)
    func anEventNewToTheReplayTakesTheNextNumber(_ engine: ContractEngine) throws {
        let under = try Self.lapsed(engine)
        try under.write { transaction in
            try transaction.execute("DELETE FROM events WHERE type = 'INITIAL_PURCHASE'")
            try Self.setSequence("EXPIRATION", 1, in: transaction)
        }
        try Self.setLastSequence(1, under)
        var expected = Replay.Replayed(inputs: 2)
        (expected.eventsAsBefore, expected.eventsNew) = (1, 1)
        #expect(try Replay.replay(apps: [S.appId: S.app], verifiers: [:], store: under.store) == expected)
        // In position order: new to the replay, it comes after every old one.
        #expect(try Self.numbers(under) == ["EXPIRATION 1 1", "INITIAL_PURCHASE 2 2"])
        #expect(try Self.lastSequence(under) == 2)
    }

    /// An earlier build made an event this one does not, numbered 2: the EXPIRATION went out as
    /// 3, and stays 3; the customer counts on from 3, so 2 and 3 are never given again.
    @Test(arguments: ContractEngine.allCases)
    func anEventNoLongerMadeTakesItsNumberAway(_ engine: ContractEngine) throws {
        let under = try Self.lapsed(engine)
        try under.write { transaction in
            try Self.setSequence("EXPIRATION", 3, in: transaction)
            var gone = Event(type: .cancellation, id: "gone", eventTimestampMs: S.t0 + 1)
            gone.appUserId = S.customer(1)
            gone.sequence = 2
            try Outbox.insert(gone, appId: S.appId, at: S.t0 + 1, webhooks: [], in: transaction)
            try transaction.execute("UPDATE events SET sequence = 2 WHERE id = 'gone'")
        }
        try Self.setLastSequence(3, under)
        var expected = Replay.Replayed(inputs: 2)
        (expected.eventsAsBefore, expected.eventsGone) = (2, 1)
        #expect(try Replay.replay(apps: [S.appId: S.app], verifiers: [:], store: under.store) == expected)
        #expect(try Self.numbers(under) == ["INITIAL_PURCHASE 1 1", "EXPIRATION 3 3"])
        #expect(try Self.lastSequence(under) == 3)
    }
}
