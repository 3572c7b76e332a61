import AppStore
import Testing

@testable import Subscriptions

/// RevenueCat's rules for subscriber attributes, as a table.
@Suite struct SubscriberAttributeTests {
    @Test(
        arguments: [
            ("favorite_color", "red", nil),
            ("$email", "a@example.com", nil),
            ("$email", "not an address", "Value is not a valid email address."),
            ("$unknownReserved", "x", "Key name format is not valid."),
            ("has space", "x", "Key name format is not valid."),
            ("1starts_with_digit", "x", "Key name format is not valid."),
            (String(repeating: "k", count: 41), "x", "Key name format is not valid."),
            ("long", String(repeating: "v", count: 501), "Value is too long."),
            ("long", String(repeating: "v", count: 500), nil),
            ("emoji", String(repeating: "😀", count: 500), nil),
            // One character of 2,000 combining marks: short in characters, long in bytes.
            ("marks", "e" + String(repeating: "\u{301}", count: 2000), "Value is too long."),
            ("$email", nil, nil),
            ("note", "a\u{0}b", "Value holds a NUL character."),
            ("note", "a\tb", nil),
        ] as [(String, String?, String?)])
    func keysAndValues(key: String, value: String?, problem: String?) {
        #expect(SubscriberAttribute.problem(key: key, value: value) == problem)
    }

    @Test func olderWritesLoseNullDeletesAndDeviceIdsAreWrittenOnce() {
        var stored: [String: SubscriberAttribute] = [:]
        stored = SubscriberAttribute.merging(
            ["color": .init(value: "red", updatedAtMs: 20), "$idfa": .init(value: "A", updatedAtMs: 20)], into: stored)
        stored = SubscriberAttribute.merging(
            ["color": .init(value: "blue", updatedAtMs: 10), "$idfa": .init(value: "B", updatedAtMs: 30)], into: stored)
        #expect(stored["color"]?.value == "red")
        #expect(stored["$idfa"]?.value == "A")
        stored = SubscriberAttribute.merging(["color": .init(value: nil, updatedAtMs: 25)], into: stored)
        #expect(SubscriberAttribute.shown(stored).keys.sorted() == ["$idfa"])
        // The deletion keeps its time: an older write cannot bring the value back.
        stored = SubscriberAttribute.merging(["color": .init(value: "green", updatedAtMs: 24)], into: stored)
        #expect(stored["color"]?.value == nil)
        stored = SubscriberAttribute.merging(["color": .init(value: "", updatedAtMs: 26)], into: stored)
        #expect(stored["color"]?.value == nil)
    }

    /// Deleting keys never set stores nothing, and markers stay bounded: a customer's record
    /// cannot be grown by requests that set nothing.
    @Test func deletionsKeepTheRecordBounded() {
        let nulls = Dictionary(
            uniqueKeysWithValues: (0..<1000).map { ("k\($0)", SubscriberAttribute(value: nil, updatedAtMs: 1)) })
        #expect(SubscriberAttribute.merging(nulls, into: [:]).isEmpty)
        var stored: [String: SubscriberAttribute] = [:]
        for round in 0..<5 {
            let keys = (0..<50).map { "r\(round)k\($0)" }
            stored = SubscriberAttribute.merging(
                Dictionary(
                    uniqueKeysWithValues: keys.map { ($0, SubscriberAttribute(value: "v", updatedAtMs: Int64(round * 2))) }),
                into: stored)
            stored = SubscriberAttribute.merging(
                Dictionary(
                    uniqueKeysWithValues: keys.map { ($0, SubscriberAttribute(value: nil, updatedAtMs: Int64(round * 2 + 1))) }),
                into: stored)
        }
        #expect(stored.count == SubscriberAttribute.maximumMarkers)
        #expect(stored["r4k0"] != nil)
        #expect(stored["r0k0"] == nil)
    }

    @Test func eventsCarryTheAttributesAndMergesKeepTheNewest() {
        var shop = Harness()
        shop.apply(.customerAction(.attributesSet(appUserId: "user", ["$email": .init(value: "u@example.com", updatedAtMs: 5)])))
        let bought = shop.send(Fixture.buy)
        #expect(bought.first?.subscriberAttributes == ["$email": .init(value: "u@example.com", updatedAtMs: 5)])
        shop.apply(.customerAction(.attributesSet(appUserId: "other", ["$email": .init(value: "o@example.com", updatedAtMs: 9)])))
        shop.apply(.customerAction(.aliased(appUserId: "user", newAppUserId: "other")))
        #expect(shop.ledger.customers["user"]?.attributes?["$email"]?.value == "o@example.com")
    }

    /// The new custom keys past the cap are named: those the room left takes (in key order) are
    /// not; deletions in the same request make room, reserved keys and keys held already never
    /// count as new.
    @Test func theNewKeysPastTheCapAreNamed() {
        func set(_ keys: [String], _ value: String? = "v") -> [String: SubscriberAttribute] {
            Dictionary(uniqueKeysWithValues: keys.map { ($0, SubscriberAttribute(value: value, updatedAtMs: 10)) })
        }
        let full = set((0..<50).map { "k\($0)" })
        #expect(SubscriberAttribute.newKeysPastCap(set((0..<50).map { "n\($0)" }), stored: [:]).isEmpty)
        #expect(SubscriberAttribute.newKeysPastCap(set(["new", "k0", "$email"]), stored: full) == ["new"])
        #expect(SubscriberAttribute.newKeysPastCap(set(["k0", "$email"]), stored: full).isEmpty)
        #expect(SubscriberAttribute.newKeysPastCap(set(["new"]).merging(set(["k1"], nil)) { $1 }, stored: full).isEmpty)
        #expect(
            SubscriberAttribute.newKeysPastCap(set(["b", "a"]).merging(set(["gone"], nil)) { $1 }, stored: full) == ["a", "b"])
        // One place left: the first new key in key order takes it.
        let fortyNine = set((0..<49).map { "k\($0)" })
        #expect(SubscriberAttribute.newKeysPastCap(set(["b2", "b0", "b1"]), stored: fortyNine) == ["b1", "b2"])
        #expect(SubscriberAttribute.newKeysPastCap(set((0..<51).map { "n\($0)" }), stored: [:]) == ["n9"])
        // A write older than the key's deletion makes no value, and takes no room.
        let deleted = fortyNine.merging(["aaa": SubscriberAttribute(value: nil, updatedAtMs: 2000)]) { $1 }
        let stale = [
            "aaa": SubscriberAttribute(value: "x", updatedAtMs: 1000), "zzz": SubscriberAttribute(value: "y", updatedAtMs: 3000),
        ]
        #expect(SubscriberAttribute.newKeysPastCap(stale, stored: deleted) == [])
        // A deletion of a held key makes room for one more.
        #expect(
            SubscriberAttribute.newKeysPastCap(set(["b0", "b1"]).merging(set(["k0"], nil)) { $1 }, stored: fortyNine)
                == [])
    }
}
