extension NotificationCatalog {
    /// The day the pages' claims were last checked against Apple's pages and their snippets run.
    static let checkedOn = "2026-12-03"

    /// Apple's pages the reference is checked against.
    static let appleTypesPage = "https://developer.apple.com/documentation/appstoreservernotifications/notificationtype"
    static let appleSubtypesPage = "https://developer.apple.com/documentation/appstoreservernotifications/subtype"
    static let appleRespondingPage =
        "https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications"

    /// The facts of each type beside its cases (`CatalogFacts`).
    static func facts(_ type: String) -> CatalogFacts {
        factsByType[type] ?? CatalogFacts(appleSays: "", access: .informational, definedIn: "")
    }

    private static let lifecycle = "Sources/Tools/Reference/NotificationCatalog+Lifecycle.swift"
    private static let changes = "Sources/Tools/Reference/NotificationCatalog+Changes.swift"
    private static let refunds = "Sources/Tools/Reference/NotificationCatalog+Refunds.swift"
    private static let other = "Sources/Tools/Reference/NotificationCatalog+Other.swift"

    private static let factsByType: [String: CatalogFacts] = [
        "SUBSCRIBED": CatalogFacts(
            appleSays: "The customer subscribed to an auto-renewable subscription: for the first time in its group "
                + "(INITIAL_BUY, a family member's first access included) or again after it ended (RESUBSCRIBE).",
            access: .startsAccess,
            seeAlso: ["Each later period arrives as DID_RENEW; the end of access as EXPIRED."], definedIn: lifecycle),
        "DID_RENEW": CatalogFacts(
            appleSays: "The subscription renewed: an active one auto-renewed (no subtype), or one that had failed "
                + "to renew was charged at last (BILLING_RECOVERY).",
            access: .keepsAccess, seeAlso: ["A renewal that fails arrives as DID_FAIL_TO_RENEW."], definedIn: lifecycle),
        "DID_FAIL_TO_RENEW": CatalogFacts(
            appleSays: "A renewal failed for a billing reason and the subscription entered billing retry; with "
                + "GRACE_PERIOD the customer keeps access through the grace period, without a subtype access ends now.",
            access: .endsAccess,
            seeAlso: [
                "Payment recovered: DID_RENEW with subtype BILLING_RECOVERY.",
                "The grace period over: GRACE_PERIOD_EXPIRED. Retry over: EXPIRED with subtype BILLING_RETRY.",
            ], definedIn: lifecycle),
        "GRACE_PERIOD_EXPIRED": CatalogFacts(
            appleSays: "The billing grace period ended without a successful renewal: access ends, while Apple "
                + "goes on trying to charge for the rest of billing retry.",
            access: .endsAccess,
            seeAlso: [
                "Payment recovered: DID_RENEW with subtype BILLING_RECOVERY. Retry over: EXPIRED with subtype BILLING_RETRY."
            ],
            definedIn: lifecycle),
        "EXPIRED": CatalogFacts(
            appleSays: "The subscription expired: auto-renew was off (VOLUNTARY), billing retry ended without a "
                + "charge (BILLING_RETRY), the customer did not consent to a price increase (PRICE_INCREASE), the "
                + "product was not for sale at renewal (PRODUCT_NOT_FOR_SALE), or for another reason (no subtype).",
            access: .endsAccess,
            seeAlso: ["They can resubscribe, which arrives as SUBSCRIBED with subtype RESUBSCRIBE."],
            notes: [
                "Each subtype overrides the type: a page or a handler that treats every EXPIRED alike loses the reason. "
                    + "The renewal info's expirationIntent says the same in numbers (1 voluntary, 2 billing error, 3 "
                    + "price increase, 4 product not for sale, 5 other).",
                "RevenueDot does not end access when EXPIRED arrives but when access ends: the scheduler records "
                    + "EXPIRATION at the period's end (or the grace period's, when one ran), and the event's "
                    + "expiration_reason comes from the stored state (UNSUBSCRIBE after auto-renew was turned off, "
                    + "BILLING_ERROR after failed renewals, PRICE_INCREASE, UNKNOWN), not from the notification alone. "
                    + "An EXPIRED that arrives late or twice changes nothing more.",
                "The customer's data is kept: purchases, events, attributes and history stay, and a later "
                    + "SUBSCRIBED RESUBSCRIBE continues the same customer and purchase.",
                "For a purchase no customer owns (it was never posted by the app), RevenueDot applies the "
                    + "notification to the purchase and keeps its events back until the app posts it, as RevenueCat "
                    + "does with its \"Track new purchases from server-to-server notifications\" setting off; with "
                    + "trackNewPurchasesFromServerNotifications on, the purchase goes to a customer at once.",
            ], definedIn: lifecycle),
        "DID_CHANGE_RENEWAL_PREF": CatalogFacts(
            appleSays: "The customer changed plan in the subscription group: an upgrade takes effect at once (UPGRADE), "
                + "a downgrade at the next renewal (DOWNGRADE), and no subtype means they went back to their current "
                + "plan, cancelling a pending downgrade.",
            access: .changesPlan,
            seeAlso: [
                "A downgrade takes effect with the next DID_RENEW, on the new product.",
                "A plan change through an offer arrives as OFFER_REDEEMED.",
            ],
            notes: [
                "An upgrade (a higher level in the group, or a cross-grade to a product of the same duration) is "
                    + "immediate: the customer gets the new product with a new period starting now, and Apple refunds "
                    + "the unused part of the old one pro rata. A downgrade (a lower level, or a cross-grade to a "
                    + "product of another duration, which counts as a downgrade) waits for the next renewal; the "
                    + "customer keeps the current product until then. No subtype: the customer chose their current "
                    + "product again, which reverts a pending downgrade.",
                "The product the subscription will renew as is the renewal info's autoRenewProductId; RevenueDot "
                    + "stores it (`renews as` in the state below) and applies it at the renewal.",
                "As RevenueCat does, RevenueDot sends PRODUCT_CHANGE for every plan change (with new_product_id) as "
                    + "information only. An upgrade is also a RENEWAL on the new product at once (its new period); a "
                    + "downgrade's RENEWAL comes with the DID_RENEW that starts it. A revert (no subtype) is a "
                    + "PRODUCT_CHANGE whose new_product_id is the current product: a consumer that noted the pending "
                    + "downgrade learns that it will not happen.",
            ], definedIn: changes),
        "DID_CHANGE_RENEWAL_STATUS": CatalogFacts(
            appleSays: "The customer (or the App Store, after a refund request) turned auto-renew off "
                + "(AUTO_RENEW_DISABLED) or on again (AUTO_RENEW_ENABLED).",
            access: .keepsAccess,
            seeAlso: ["With auto-renew off, the period's end arrives as EXPIRED with subtype VOLUNTARY."],
            definedIn: changes),
        "OFFER_REDEEMED": CatalogFacts(
            appleSays: "A customer with an active subscription redeemed a promotional offer or an offer code: for a "
                + "higher plan at once (UPGRADE), a lower one at the next renewal (DOWNGRADE), or the current one (no "
                + "subtype).",
            access: .changesPlan,
            seeAlso: ["An offer redeemed after the subscription ended arrives as SUBSCRIBED with subtype RESUBSCRIBE."],
            definedIn: changes),
        "PRICE_INCREASE": CatalogFacts(
            appleSays: "Apple told the customer about a price increase: their consent is required and has not come "
                + "(PENDING), or they consented or no consent was needed (ACCEPTED).",
            access: .keepsAccess,
            seeAlso: ["Without consent by the renewal date it ends as EXPIRED with subtype PRICE_INCREASE."],
            definedIn: changes),
        "REFUND": CatalogFacts(
            appleSays: "The App Store refunded a transaction of any product type; the transaction carries "
                + "revocationDate and revocationReason.",
            access: .moneyBack,
            seeAlso: ["A refund reversed later arrives as REFUND_REVERSED; a family member's loss of access as REVOKE."],
            definedIn: refunds),
        "REFUND_DECLINED": CatalogFacts(
            appleSays: "The App Store declined a refund the customer asked for.", access: .moneyBack,
            definedIn: refunds),
        "REFUND_REVERSED": CatalogFacts(
            appleSays: "The App Store reversed a refund it had granted, after the customer disputed it: reinstate "
                + "what the refund took away; the renewal date is unchanged.",
            access: .moneyBack, definedIn: refunds),
        "CONSUMPTION_REQUEST": CatalogFacts(
            appleSays: "The customer asked for a refund of a consumable or an auto-renewable subscription, and Apple "
                + "asks for consumption information (data.consumptionRequestReason says why).",
            access: .moneyBack,
            seeAlso: ["Apple's decision arrives as REFUND or REFUND_DECLINED."],
            notes: [
                "Apple decides without your answer unless it gets one within 12 hours of the request, and takes "
                    + "none unless the customer consented to sharing the data. With appleApi.consumption enabled "
                    + "(and customerConsented true once your customers agreed), `revenuedot serve` answers each "
                    + "request itself within seconds (Send Consumption Information, version 2; version 1 for an "
                    + "Advanced Commerce purchase, which version 2 refuses), following the owner's "
                    + "$appleRefundHandlingPreference attribute when set, tries again until a last try 10 minutes "
                    + "before the 12 hours end, and `revenuedot notifications show UUID` shows what it sent."
            ], definedIn: refunds),
        "REVOKE": CatalogFacts(
            appleSays: "A family member is no longer entitled to a purchase shared through Family Sharing: the "
                + "purchaser stopped sharing, left the family, or was refunded.",
            access: .endsAccess, definedIn: refunds),
        "RENEWAL_EXTENDED": CatalogFacts(
            appleSays: "Apple extended one subscription's renewal date, at your request through the App Store "
                + "Server API.",
            access: .keepsAccess, definedIn: other),
        "RENEWAL_EXTENSION": CatalogFacts(
            appleSays: "A renewal-date extension for all eligible subscribers finished (SUMMARY, with a summary "
                + "instead of data) or failed for one subscription (FAILURE).",
            access: .keepsAccess,
            seeAlso: ["Each subscription extended also arrives as RENEWAL_EXTENDED."], definedIn: other),
        "ONE_TIME_CHARGE": CatalogFacts(
            appleSays: "The customer bought a consumable, a non-consumable or a non-renewing subscription (offer-code "
                + "redemptions and non-consumables received through Family Sharing included).",
            access: .startsAccess, seeAlso: ["A refund of it arrives as REFUND."], definedIn: other),
        "TEST": CatalogFacts(
            appleSays: "The App Store sends it only when you call Request a Test Notification.", access: .informational,
            definedIn: other),
        "EXTERNAL_PURCHASE_TOKEN": CatalogFacts(
            appleSays: "For apps on the External Purchase API: a token was created but never reported "
                + "(UNREPORTED), a custom-link token was created (CREATED), or a custom-link token is still active "
                + "(ACTIVE_TOKEN_REMINDER, monthly); the payload has externalPurchaseToken instead of data.",
            access: .informational, definedIn: other),
        "RESCIND_CONSENT": CatalogFacts(
            appleSays: "A parent or guardian withdrew consent for a child's use of the app; the payload has appData "
                + "instead of data.",
            access: .informational, definedIn: other),
        "METADATA_UPDATE": CatalogFacts(
            appleSays: "Advanced Commerce API only: you changed a subscription's metadata (Change Subscription "
                + "Metadata).",
            access: .changesPlan, definedIn: other),
        "MIGRATION": CatalogFacts(
            appleSays: "Advanced Commerce API only: you migrated a subscription to the Advanced Commerce API.",
            access: .changesPlan, definedIn: other),
        "PRICE_CHANGE": CatalogFacts(
            appleSays: "Advanced Commerce API only: you changed a subscription's price (Change Subscription Price).",
            access: .keepsAccess, definedIn: other),
    ]
}
