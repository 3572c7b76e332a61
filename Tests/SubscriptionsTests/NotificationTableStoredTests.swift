import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// Issue 4's table, last part: notifications that are only stored, one-time purchases, TEST,
/// Advanced Commerce updates, and values Apple may add later.
@Suite struct NotificationTableStoredTests {
    static let day = Fixture.day

    /// The fold is unchanged; only the history (and the newest date) grew.
    static let unchanged: @Sendable (Ledger, Ledger, [Event]) -> Void = { before, after, _ in
        #expect(Fixture.fold(before) == Fixture.fold(after))
        #expect(after.subscriptions[Apple.original]?.journal.facts.count == 2)
    }

    /// Stored without a purchase: nothing about the subscription changed.
    static let unattached: @Sendable (Ledger, Ledger, [Event]) -> Void = { before, after, _ in
        #expect(before.subscriptions == after.subscriptions)
        #expect(after.unattachedFacts.count == 1)
    }

    static func about(_ type: NotificationTypeV2, _ subtype: Subtype? = nil) -> VerifiedNotificationFacts {
        Apple.notification(type, subtype, uuid: "n-\(type.rawValue)", signed: day(12), transaction: Fixture.p1)
    }

    static func bare(_ type: NotificationTypeV2, _ subtype: Subtype? = nil) -> VerifiedNotificationFacts {
        Apple.notification(type, subtype, uuid: "n-\(type.rawValue)", signed: day(12))
    }

    static func advancedCommerce(_ type: NotificationTypeV2) -> TableCase {
        var transaction = Apple.transaction("1000", purchase: Apple.t0)
        transaction.advancedCommerceInfo = TransactionAdvancedCommerceInfo(
            items: [TransactionAdvancedCommerceItem(sku: "news", displayName: "News", price: 4_990)])
        var renewal = Apple.renewal()
        renewal.advancedCommerceInfo = RenewalAdvancedCommerceInfo(
            items: [RenewalAdvancedCommerceItem(sku: "news", price: 5_990)])
        let facts = Apple.notification(
            type, uuid: "n-\(type.rawValue)", signed: day(12), transaction: transaction, renewal: renewal)
        return TableCase(type.rawValue, facts, events: []) { _, after, _ in
            let state = after.subscriptions[Apple.original]
            #expect(state?.advancedCommerce?.items?.first?.sku == "news")
            #expect(state?.renewalAdvancedCommerce?.items?.first?.price == 5_990)
        }
    }

    static let rows: [TableCase] = [
        TableCase("REFUND_DECLINED", about(.refundDeclined), events: [], check: unchanged),
        TableCase("CONSUMPTION_REQUEST", about(.consumptionRequest), events: [], check: unchanged),
        TableCase("RENEWAL_EXTENSION FAILURE", about(.renewalExtension, .failure), events: [], check: unchanged),
        TableCase("RENEWAL_EXTENSION SUMMARY", bare(.renewalExtension, .summary), events: [], check: unattached),
        TableCase("EXTERNAL_PURCHASE_TOKEN UNREPORTED", bare(.externalPurchaseToken, .unreported), events: [], check: unattached),
        TableCase("EXTERNAL_PURCHASE_TOKEN CREATED", bare(.externalPurchaseToken, .created), events: [], check: unattached),
        TableCase(
            "EXTERNAL_PURCHASE_TOKEN ACTIVE_TOKEN_REMINDER", bare(.externalPurchaseToken, .activeTokenReminder), events: [],
            check: unattached),
        TableCase("RESCIND_CONSENT", bare(.rescindConsent), events: [], check: unattached),
        TableCase("TEST", bare(.test), events: [.test]) { before, after, events in
            unattached(before, after, events)
            #expect(events.first?.sequence == nil)
            #expect(events.first?.environment == .production)
            #expect(events.first?.isFamilyShare == false && events.first?.aliases == [])
        },
        TableCase("unknown type with data", about(.unknown("FUTURE_TYPE")), events: [], check: unchanged),
        TableCase("unknown type without data", bare(.unknown("FUTURE_TYPE")), events: [], check: unattached),
        TableCase(
            "known type, unknown subtype",
            Apple.notification(.didRenew, .unknown("FUTURE"), uuid: "n-future", signed: day(30), transaction: Fixture.p2),
            events: [], check: unchanged),
        TableCase(
            "ONE_TIME_CHARGE",
            Apple.notification(
                .oneTimeCharge, uuid: "n-coins", signed: day(3),
                transaction: Apple.transaction(
                    "2000", original: "2000", product: "coins.100", purchase: day(3), price: 1_990, type: .consumable,
                    token: "user")),
            events: [.nonRenewingPurchase]
        ) { before, after, events in
            #expect(before.subscriptions == after.subscriptions)
            #expect(after.oneTimePurchases["2000"]?.productId == "coins.100")
            #expect(after.customers["user"]?.oneTimeTransactionIds == ["2000"])
            #expect(events.first?.priceInPurchasedCurrency == 1.99)
            #expect(events.first?.expirationAtMs == nil)
        },
        // A family member's copy taken back: access ends then, as a revoked subscription's does.
        TableCase(
            "REVOKE of a one-time purchase", setup: [Self.sharedCoins(revokedAt: nil)],
            Apple.notification(
                .revoke, uuid: "n-coins-revoked", signed: day(5), transaction: Self.sharedCoins(revokedAt: day(5)).transaction),
            events: [.expiration]
        ) { _, after, events in
            #expect(events.first?.expirationAtMs == day(5))
            #expect(events.first?.expirationReason == .unknown)
            #expect(events.first?.isFamilyShare == true)
            #expect(after.oneTimePurchases["2100"]?.revocation?.atMs == day(5))
        },
        // The REVOKE the first report of the purchase: the purchase, then its end.
        TableCase(
            "REVOKE of a one-time purchase not known yet", setup: [],
            Apple.notification(
                .revoke, uuid: "n-coins-revoked", signed: day(5), transaction: Self.sharedCoins(revokedAt: day(5)).transaction),
            events: [.nonRenewingPurchase, .expiration]),
        advancedCommerce(.metadataUpdate),
        advancedCommerce(.migration),
        advancedCommerce(.priceChange),
    ]

    /// Coins a family member got through Family Sharing, in Apple's ONE_TIME_CHARGE.
    static func sharedCoins(revokedAt: Int64?) -> VerifiedNotificationFacts {
        let transaction = Apple.transaction(
            "2100", original: "2100", product: "coins.100", purchase: day(3), price: 1_990, ownership: .familyShared,
            type: .nonConsumable, token: "user", revokedAt: revokedAt, revocationType: .familyRevoke)
        return Apple.notification(
            .oneTimeCharge, uuid: "n-coins-shared", signed: revokedAt ?? day(3),
            transaction: transaction)
    }

    @Test(arguments: rows)
    func row(_ row: TableCase) {
        row.verify()
    }
}
