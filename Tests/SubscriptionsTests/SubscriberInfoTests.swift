import AppStore
import Foundation
import JSON
import SubscriptionsFixtures
import Testing
import Threads

@testable import Subscriptions

/// Issue 4 item 6, the pure part: `GET /v1/subscribers/{app_user_id}` rendered from the ledger.
@Suite struct SubscriberInfoTests {
    let day = Fixture.day
    let configuration = LedgerConfiguration(
        entitlements: ["pro": [Apple.monthly, Apple.yearly], "lifetime": ["forever"], "unused": ["nothing"]])

    /// A ledger whose subscription `1000` belongs to `user`, with the notifications applied.
    func shop(_ notifications: VerifiedNotificationFacts...) -> Harness {
        var shop = Harness(ledger: Ledger(configuration: configuration))
        for facts in notifications { shop.send(facts) }
        return shop
    }

    /// The rendered body, checked to be compact JSON with sorted keys (what `serialized()` writes).
    func render(_ shop: Harness, atMs: Int64, user: String = "user") -> JSONValue {
        let at = Date(milliseconds: atMs)
        let value = SubscriberInfo.json(for: user, in: shop.ledger, at: at)
        let bytes = SubscriberInfo.body(
            for: user, customer: shop.ledger.customers[user], purchases: shop.ledger.views(of: user),
            entitlements: shop.ledger.configuration.entitlements, at: at)
        #expect(String(decoding: bytes, as: UTF8.self) == value.serialized())
        return value
    }

    func iso(_ milliseconds: Int64) -> JSONValue { .string(ISO8601UTC.string(fromMilliseconds: milliseconds)) }

    // MARK: - Subscriptions

    @Test func activeMonthlySubscriptionWithEntitlement() {
        let info = render(shop(Fixture.buy), atMs: day(10))
        let expected: JSONValue = .object([
            "request_date": "2023-11-24T22:13:20Z",
            "request_date_ms": .integer(day(10)),
            "subscriber": .object([
                "original_app_user_id": "user",
                "first_seen": "2023-11-14T22:13:20Z",
                "last_seen": "2023-11-14T22:13:20Z",  // no contact from the app since it was first seen
                "management_url": "https://apps.apple.com/account/subscriptions",
                "original_application_version": .null,
                "original_purchase_date": .null,
                "entitlements": .object([
                    "pro": .object([
                        "expires_date": "2023-12-14T22:13:20Z",
                        "grace_period_expires_date": .null,
                        "product_identifier": "pro.monthly",
                        "purchase_date": "2023-11-14T22:13:20Z",
                    ])
                ]),
                "subscriptions": .object([
                    "pro.monthly": .object([
                        "store": "app_store",
                        "is_sandbox": false,
                        "management_url": "https://apps.apple.com/account/subscriptions",
                        "purchase_date": "2023-11-14T22:13:20Z",
                        "original_purchase_date": "2023-11-14T22:13:20Z",
                        "expires_date": "2023-12-14T22:13:20Z",
                        "period_type": "normal",
                        "unsubscribe_detected_at": .null,
                        "billing_issues_detected_at": .null,
                        "grace_period_expires_date": .null,
                        "refunded_at": .null,
                        "auto_resume_date": .null,
                        "ownership_type": "PURCHASED",
                        "store_transaction_id": "1000",
                        "price": .object(["amount": .number(9.99), "currency": "USD"]),
                        "display_name": .null,
                    ])
                ]),
                "non_subscriptions": .object([:]),
                "other_purchases": .object([:]),
            ]),
        ])
        #expect(info == expected)
        #expect(info.serialized().contains(#""price":{"amount":9.99,"currency":"USD"}"#))
        #expect(info.serialized().hasPrefix(#"{"request_date":"2023-11-24T22:13:20Z","request_date_ms":1700864000000,"#))
    }

    @Test func expiredSubscriptionKeepsItsEntitlementListed() {
        let info = render(shop(Fixture.buy, Fixture.disable), atMs: day(40))
        let subscriber = info["subscriber"]
        #expect(subscriber?["management_url"] == .null)
        #expect(subscriber?["entitlements"]?["pro"]?["expires_date"] == iso(day(30)))
        #expect(subscriber?["entitlements"]?["pro"]?["product_identifier"] == "pro.monthly")
        #expect(subscriber?["entitlements"]?["unused"] == nil)
        #expect(subscriber?["entitlements"]?["lifetime"] == nil)
        let monthly = subscriber?["subscriptions"]?["pro.monthly"]
        #expect(monthly?["expires_date"] == iso(day(30)))
        #expect(monthly?["unsubscribe_detected_at"] == iso(day(5)))
    }

    @Test func billingIssueInGracePeriod() {
        let info = render(shop(Fixture.buy, Fixture.failWithGrace), atMs: day(40))
        let subscriber = info["subscriber"]
        #expect(subscriber?["management_url"] == .string(SubscriberInfo.managementURL))
        let monthly = subscriber?["subscriptions"]?["pro.monthly"]
        #expect(monthly?["billing_issues_detected_at"] == iso(day(30)))
        #expect(monthly?["grace_period_expires_date"] == iso(day(46)))
        // RevenueCat's clients decide access from the entitlement's expires_date alone, and count
        // a product active (activeSubscriptions) by the subscription's: in grace, both are the
        // grace period's end, so a paying customer in grace keeps access and the product.
        #expect(monthly?["expires_date"] == iso(day(46)))
        let pro = subscriber?["entitlements"]?["pro"]
        #expect(pro?["expires_date"] == iso(day(46)))
        #expect(pro?["grace_period_expires_date"] == iso(day(46)))
        let recovered = recovery(atDay: 41)
        let after = render(shop(Fixture.buy, Fixture.failWithGrace, recovered), atMs: day(42))
        #expect(after["subscriber"]?["subscriptions"]?["pro.monthly"]?["billing_issues_detected_at"] == .null)
        // As RevenueCat: once a grace period was had, its end stays, null only for never. The
        // recovery ended it, so it is never shown ahead while no grace period runs.
        #expect(after["subscriber"]?["subscriptions"]?["pro.monthly"]?["grace_period_expires_date"] == iso(day(41)))
        #expect(after["subscriber"]?["subscriptions"]?["pro.monthly"]?["expires_date"] == iso(day(71)))
        #expect(after["subscriber"]?["entitlements"]?["pro"]?["grace_period_expires_date"] == iso(day(41)))
        #expect(after["subscriber"]?["entitlements"]?["pro"]?["expires_date"] == iso(day(71)))
        // Delivered the other way round, the same.
        let reordered = render(shop(Fixture.buy, recovered, Fixture.failWithGrace), atMs: day(42))
        #expect(reordered == after)
    }

    @Test func refundEndsTheEntitlementAtTheRevocation() {
        let info = render(shop(Fixture.buy, Fixture.refund), atMs: day(11))
        let subscriber = info["subscriber"]
        #expect(subscriber?["management_url"] == .null)
        #expect(subscriber?["subscriptions"]?["pro.monthly"]?["refunded_at"] == iso(day(10)))
        // As RevenueCat's subscriptions[]: the refunded period ends at its refund.
        #expect(subscriber?["subscriptions"]?["pro.monthly"]?["expires_date"] == iso(day(10)))
        #expect(subscriber?["entitlements"]?["pro"]?["expires_date"] == iso(day(10)))
    }

    @Test func familySharedSubscriptionAndItsRevocation() {
        var shared = Apple.transaction("1000", purchase: Apple.t0, ownership: .familyShared)
        shared.environment = .sandbox
        let buy = Apple.notification(
            .subscribed, .initialBuy, uuid: "n-buy", signed: Apple.t0, transaction: shared, renewal: Apple.renewal())
        let monthly = render(shop(buy), atMs: day(5))["subscriber"]?["subscriptions"]?["pro.monthly"]
        #expect(monthly?["ownership_type"] == "FAMILY_SHARED")
        #expect(monthly?["is_sandbox"] == true)
        var revoked = shared
        revoked.revocationDate = day(8)
        revoked.revocationType = .familyRevoke
        let revoke = Apple.notification(.revoke, uuid: "n-revoke", signed: day(8), transaction: revoked)
        let subscriber = render(shop(buy, revoke), atMs: day(9))["subscriber"]
        #expect(subscriber?["entitlements"]?["pro"]?["expires_date"] == iso(day(8)))
        // A Family Sharing revocation shows as RevenueCat shows it: refunded at the revocation.
        #expect(subscriber?["subscriptions"]?["pro.monthly"]?["refunded_at"] == iso(day(8)))
        #expect(subscriber?["subscriptions"]?["pro.monthly"]?["expires_date"] == iso(day(8)))
        #expect(subscriber?["management_url"] == .null)
    }

    @Test func trialPeriodType() {
        let trial = Apple.transaction(
            "1000", purchase: Apple.t0, expires: day(7), offer: .introductory, discount: .freeTrial)
        let buy = Apple.notification(
            .subscribed, .initialBuy, uuid: "n-buy", signed: Apple.t0, transaction: trial, renewal: Apple.renewal())
        let monthly = render(shop(buy), atMs: day(1))["subscriber"]?["subscriptions"]?["pro.monthly"]
        #expect(monthly?["period_type"] == "trial")
        #expect(monthly?["price"] == .object(["amount": .integer(0), "currency": "USD"]))
        #expect(monthly?["expires_date"] == iso(day(7)))
    }

    @Test func twoSubscriptionsOfOneProductShowTheLaterExpiry() {
        let again = Apple.transaction("2000", original: "2000", purchase: day(40), token: "user")
        let resubscribe = Apple.notification(
            .subscribed, .initialBuy, uuid: "n-again", signed: day(40), transaction: again,
            renewal: Apple.renewal(original: "2000"))
        for order in [[Fixture.buy, resubscribe], [resubscribe, Fixture.buy]] {
            var shop = Harness(ledger: Ledger(configuration: configuration))
            for facts in order { shop.send(facts) }
            #expect(shop.ledger.customers["user"]?.originalTransactionIds == ["1000", "2000"])
            let subscriber = render(shop, atMs: day(45))["subscriber"]
            let monthly = subscriber?["subscriptions"]?["pro.monthly"]
            #expect(monthly?["store_transaction_id"] == "2000")
            #expect(monthly?["expires_date"] == iso(day(70)))
            #expect(subscriber?["entitlements"]?["pro"]?["expires_date"] == iso(day(70)))
            #expect(subscriber?["entitlements"]?["pro"]?["purchase_date"] == iso(day(40)))
        }
    }

    /// RevenueCat's `display_name`: the name configured for the product, null for one not named.
    @Test func displayNamesAreTheConfiguredOnes() throws {
        let lifetime = Apple.transaction(
            "7000", original: "7000", product: "forever", purchase: day(2), type: .nonConsumable, token: "user")
        let charge = Apple.notification(.oneTimeCharge, uuid: "n-life", signed: day(2), transaction: lifetime)
        let shop = shop(Fixture.buy, charge)
        let bytes = SubscriberInfo.body(
            for: "user", customer: shop.ledger.customers["user"], purchases: shop.ledger.views(of: "user"),
            entitlements: configuration.entitlements, displayNames: ["pro.monthly": "Pro, monthly", "unused": "x"],
            at: Date(milliseconds: day(5)))
        let subscriber = try JSONValue(parsing: Data(bytes))["subscriber"]
        #expect(subscriber?["subscriptions"]?["pro.monthly"]?["display_name"] == "Pro, monthly")
        #expect(subscriber?["non_subscriptions"]?["forever"]?.arrayValue?.first?["display_name"] == .null)
        let named = SubscriberInfo.body(
            for: "user", customer: shop.ledger.customers["user"], purchases: shop.ledger.views(of: "user"),
            entitlements: configuration.entitlements, displayNames: ["forever": "Forever"], at: Date(milliseconds: day(5)))
        let forever = try JSONValue(parsing: Data(named))["subscriber"]?["non_subscriptions"]?["forever"]?.arrayValue?.first
        #expect(forever?["display_name"] == "Forever")
    }

    // MARK: - Non-subscriptions

    @Test func nonConsumableIsListedWithALifetimeEntitlement() {
        let lifetime = Apple.transaction(
            "7000", original: "7000", product: "forever", purchase: day(2), price: 230_000, currency: "JPY",
            type: .nonConsumable, token: "user")
        let charge = Apple.notification(.oneTimeCharge, uuid: "n-life", signed: day(2), transaction: lifetime)
        let subscriber = render(shop(Fixture.buy, charge), atMs: day(500))["subscriber"]
        #expect(
            subscriber?["non_subscriptions"]
                == .object([
                    "forever": .array([
                        .object([
                            "id": "7000",
                            "is_sandbox": false,
                            // The transaction's own (a restored purchase keeps the first one's date).
                            "original_purchase_date": iso(Apple.t0),
                            "purchase_date": iso(day(2)),
                            "store": "app_store",
                            "store_transaction_id": "7000",
                            "price": .object(["amount": .integer(230), "currency": "JPY"]),
                            "display_name": .null,
                        ])
                    ])
                ]))
        #expect(
            subscriber?["entitlements"]?["lifetime"]
                == .object([
                    "expires_date": .null,
                    "grace_period_expires_date": .null,
                    "product_identifier": "forever",
                    "purchase_date": iso(day(2)),
                ]))
        #expect(subscriber?["entitlements"]?["pro"]?["expires_date"] == iso(day(30)))
        var refunded = lifetime
        refunded.revocationDate = day(600)
        let refund = Apple.notification(.refund, uuid: "n-life-refund", signed: day(600), transaction: refunded)
        let after = render(shop(Fixture.buy, charge, refund), atMs: day(601))["subscriber"]
        #expect(after?["entitlements"]?["lifetime"]?["expires_date"] == iso(day(600)))
    }

    // MARK: - Unknown customer

    @Test func unknownCustomerGetsAnEmptySubscriber() {
        let info = render(shop(Fixture.buy), atMs: day(10), user: "nobody")
        let now = iso(day(10))
        #expect(
            info
                == .object([
                    "request_date": now,
                    "request_date_ms": .integer(day(10)),
                    "subscriber": .object([
                        "original_app_user_id": "nobody",
                        "first_seen": now,
                        "last_seen": now,
                        "management_url": .null,
                        "original_application_version": .null,
                        "original_purchase_date": .null,
                        "entitlements": .object([:]),
                        "subscriptions": .object([:]),
                        "non_subscriptions": .object([:]),
                        "other_purchases": .object([:]),
                    ]),
                ]))
        #expect(SubscriberInfo.json(for: "nobody", in: Ledger(), at: Date(milliseconds: day(10))) == info)
    }

    // MARK: - Values

    @Test func everyRenderedDateIsISO8601UTCToTheSecond() throws {
        let lifetime = Apple.transaction(
            "7000", original: "7000", product: "forever", purchase: day(2) + 123, type: .nonConsumable, token: "user")
        let charge = Apple.notification(.oneTimeCharge, uuid: "n-life", signed: day(2), transaction: lifetime)
        let info = render(shop(Fixture.buy, Fixture.disable, Fixture.failWithGrace, charge), atMs: day(40) + 987)
        let pattern = try Regex(#"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"#)
        var dates: [String] = []
        collectDates(info, key: "", into: &dates)
        #expect(dates.count == 14)
        for text in dates { #expect(text.wholeMatch(of: pattern) != nil, "\(text)") }
        #expect(info["request_date"] == "2023-12-24T22:13:20Z")
    }

    /// Every string under a key naming a date (`*_date`, `*_at`, `first_seen`, `last_seen`).
    private func collectDates(_ value: JSONValue, key: String, into dates: inout [String]) {
        switch value {
        case .object(let members):
            for (key, member) in members { collectDates(member, key: key, into: &dates) }
        case .array(let elements):
            for element in elements { collectDates(element, key: key, into: &dates) }
        case .string(let text) where key.hasSuffix("_date") || key.hasSuffix("_at") || key.hasSuffix("_seen"):
            dates.append(text)
        default:
            break
        }
    }
    /// After plan changes, every product the subscription had stays under `subscriptions` with
    /// its access ended when the next plan began, and the entitlements it alone gave stay listed,
    /// expired (RevenueCat's shape).
    @Test func earlierProductsStayListedAfterPlanChanges() {
        let upgrade = Apple.notification(
            .didChangeRenewalPref, .upgrade, uuid: "n-up", signed: day(10),
            transaction: Apple.transaction("1001", product: Apple.yearly, purchase: day(10)),
            renewal: Apple.renewal(product: Apple.yearly))
        let crossgrade = Apple.notification(
            .didChangeRenewalPref, .upgrade, uuid: "n-cross", signed: day(20),
            transaction: Apple.transaction("1002", product: "solo", purchase: day(20)), renewal: Apple.renewal(product: "solo"))
        let shop = shop(Fixture.buy, upgrade, crossgrade)
        let info = render(shop, atMs: day(25))
        let subscriptions = info["subscriber"]?["subscriptions"]
        #expect(subscriptions?.objectValue?.keys.sorted() == [Apple.monthly, Apple.yearly, "solo"])
        #expect(subscriptions?[Apple.monthly]?["expires_date"] == iso(day(10)))
        #expect(subscriptions?[Apple.monthly]?["store_transaction_id"] == "1000")
        #expect(subscriptions?[Apple.yearly]?["expires_date"] == iso(day(20)))
        #expect(subscriptions?["solo"]?["store_transaction_id"] == "1002")
        // `pro` came from the earlier plans only: listed, expired at the crossgrade.
        #expect(info["subscriber"]?["entitlements"]?["pro"]?["expires_date"] == iso(day(20)))
        #expect(info["subscriber"]?["entitlements"]?["pro"]?["product_identifier"] == .string(Apple.yearly))
        #expect(shop.subscription.earlierProducts.map(\.productId) == [Apple.monthly, Apple.yearly])
    }

    /// Keys sort by UTF-8 bytes, as `serialized()` sorts them, also for ids that are not in NFC
    /// ("cafe" + U+0301 sorts before "cafz" by bytes, after it by `String <`).
    @Test func entitlementIdsSortByUTF8Bytes() throws {
        func view(_ id: String, _ product: String) -> PurchaseView {
            PurchaseView(
                kind: .oneTime, id: id, productId: product, environment: nil, ownershipType: nil, transactionId: id,
                purchaseDateMs: 1, originalPurchaseDateMs: 1, expiresDateMs: nil, accessEndsAtMs: nil,
                gracePeriodAccessEndsAtMs: nil, periodType: nil, unsubscribeDetectedAtMs: nil, billingIssueDetectedAtMs: nil,
                refundedAtMs: nil, priceMilliunits: nil, currency: nil, advancedCommerce: nil)
        }
        let bytes = SubscriberInfo.body(
            for: "u", customer: CustomerState(appUserId: "u", firstSeenMs: 0), purchases: [view("1", "p1"), view("2", "p2")],
            entitlements: ["cafe\u{301}": ["p1"], "cafz": ["p2"]], at: Date(timeIntervalSince1970: 100))
        #expect(String(decoding: bytes, as: UTF8.self) == (try JSONValue(parsing: Data(bytes))).serialized())
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
