import AppStore
import Crypto
import Foundation
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Event ids, prices, country codes, period types and RevenueCat's JSON field names.
@Suite struct EventTests {
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        ),
    ])
    func sha1MatchesTheStandardVectors(message: String, hex: String) {
        let digest = Digest.sha1(Array(message.utf8))
        #expect(digest.map { String($0, radix: 16).leftPadded }.joined() == hex)
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        ),
        (String(repeating: "a", count: 1_000_000), "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
    ])
    func swiftSHA1MatchesTheStandardVectors(message: String, hex: String) {
        #expect(SHA1.hash(Array(message.utf8)).map { String($0, radix: 16).leftPadded }.joined() == hex)
    }

    /// Every length up to five blocks, around each place the padding changes (55, 56, 63, 64
    /// bytes in a block), against OpenSSL's SHA-1.
    @Test func swiftSHA1MatchesOpenSSLAtEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...320 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(SHA1.hash(bytes) == Digest.sha1(bytes), "length \(length)")
        }
    }

    @Test func uuid5MatchesRFCExample() {
        let dns = EventID.uuidBytes("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
        #expect(EventID.uuid5(namespace: dns, name: "python.org") == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
    }

    /// Event ids are the name-based UUIDs of their causes under `revenuedot:event`; other
    /// namespaces give other ids for the same name.
    @Test func nameBasedUUIDsShareTheEventIdMechanism() {
        #expect(EventID.nameBased("a/b", in: "revenuedot:event") == EventID.make(cause: "a/b"))
        #expect(EventID.nameBased("a/b", in: "revenuedot:docs") != EventID.make(cause: "a/b"))
        #expect(UUID(uuidString: EventID.nameBased("alice", in: "revenuedot:simulator")) != nil)
    }

    @Test func idsDependOnTheCauseOnly() {
        let id = EventID.make(cause: "1000/PERIOD/1001")
        #expect(id == EventID.make(cause: "1000/PERIOD/1001"))
        #expect(id != EventID.make(cause: "1000/PERIOD/1002"))
        #expect(id.count == 36 && id.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(Array(id)[14] == "5")
    }

    @Test(arguments: [("USA", "US"), ("GBR", "GB"), ("deu", "DE"), ("XKS", "XK"), ("ZZZ", "ZZZ")])
    func storefrontsMapToAlpha2(storefront: String, alpha2: String) {
        #expect(CountryCode.alpha2(fromStorefront: storefront) == alpha2)
    }

    @Test func pricesAreExactDecimalsAndUSDOnlyInUSD() {
        var event = Event(type: .renewal, id: "x")
        event.currency = "EUR"
        event.setPrice(milliunits: 39_990)
        #expect(event.priceInPurchasedCurrency == Decimal(string: "39.99"))
        #expect(event.price == nil)
        event.setPrice(milliunits: 0)
        #expect(event.price == 0)
        event.currency = "USD"
        event.setPrice(milliunits: -9_990)
        #expect(event.price == Decimal(string: "-9.99"))
        var prorated = Apple.transaction("1", purchase: 0, revokedAt: 1, revocationType: .refundProrated)
        prorated.revocationPercentage = 50_000
        #expect(Event.refundedMilliunits(of: prorated) == -4_995)
        // A snapshot stored before payload numbers were checked: clamped, never a trap.
        for (price, percentage) in [(Int64.max, Int32.max), (Int64.min, Int32.min), (Int64.max, 100_000), (Int64.min, -1)] {
            prorated.price = price
            prorated.revocationPercentage = percentage
            let refunded = Event.refundedMilliunits(of: prorated)
            #expect(refunded.map(\.magnitude).map { $0 <= 10_000_000_000_000 } == true)
            prorated.revocationType = .refundFull
            #expect(Event.refundedMilliunits(of: prorated)?.magnitude == 10_000_000_000_000)
            prorated.revocationType = .refundProrated
        }
        // A transaction signed without `price`: both prices null (unknown), not 0 (a free trial).
        prorated.price = nil
        #expect(Event.refundedMilliunits(of: prorated) == nil)
        event.setPrice(milliunits: nil)
        #expect(event.price == nil && event.priceInPurchasedCurrency == nil)
    }

    @Test(arguments: [
        (OfferType?.none, OfferDiscountType?.none, PeriodType.normal),
        (.introductory, .freeTrial, .trial),
        (.introductory, .payAsYouGo, .intro),
        // PROMOTIONAL is for RevenueCat's own grants: a store offer is TRIAL when free, else INTRO.
        (.promotional, .payUpFront, .intro),
        (.offerCode, .freeTrial, .trial),
        (.winBack, .oneTime, .intro),
        (.promotional, .freeTrial, .trial),
    ])
    func periodTypeComesFromTheOfferFields(offer: OfferType?, discount: OfferDiscountType?, expected: PeriodType) {
        let transaction = Apple.transaction("1", purchase: 0, offer: offer, discount: discount)
        #expect(SubscriptionState.periodType(of: transaction) == expected)
    }

    @Test func encodesRevenueCatFieldNames() throws {
        var shop = Harness(ledger: Ledger(configuration: LedgerConfiguration(entitlements: ["pro": [Apple.monthly]])))
        let event = try #require(shop.send(Fixture.buy).first)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(event), as: UTF8.self)
        for fragment in [
            #""type":"INITIAL_PURCHASE""#, #""app_user_id":"user""#, #""product_id":"pro.monthly""#,
            #""entitlement_ids":["pro"]"#, #""period_type":"NORMAL""#, #""purchased_at_ms":1700000000000"#,
            #""environment":"PRODUCTION""#, #""store":"APP_STORE""#, #""is_family_share":false"#,
            #""price_in_purchased_currency":9.99"#, #""price":9.99"#, #""country_code":"US""#,
            #""renewal_number":1"#, #""sequence":1"#, #""original_transaction_id":"1000""#,
        ] {
            #expect(json.contains(fragment), "missing \(fragment) in \(json)")
        }
        #expect(try JSONDecoder().decode(Event.self, from: encoder.encode(event)) == event)
    }
}

extension String {
    /// Two hex digits.
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
