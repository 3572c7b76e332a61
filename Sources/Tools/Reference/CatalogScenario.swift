import AppStore
import Foundation
import JSON
import Server
import Subscriptions

/// A catalog case's example, played for real: the subscription is brought to the case's "before"
/// state, then the example notification is signed over a test chain, verified by the same
/// `SignedDataVerifier` ingest uses, and applied by the same reducer. Its outcome is what the
/// docs and `revenuedot explain` state, so they cannot drift from the code.
///
/// Everything is fixed (dates from `baseMs`, ids from the case's name), so the decoded example
/// and the outcome are the same on every run; only the signature bytes differ.
struct CatalogScenario {
    let type: String
    let subtype: String?
    let example: CatalogExample

    /// 2026-01-01T00:00:00Z: the moment the example notification is signed and applied.
    static let baseMs: Int64 = 1_767_225_600_000
    static let dayMs: Int64 = 86_400_000
    /// The examples' billing grace period: 16 days, one of the lengths App Store Connect offers.
    static let graceMs: Int64 = 16 * dayMs
    static let originalTransactionId = "2000000000000001"
    static let bundleId = "com.example.app"
    static let appAppleId: Int64 = 1_234_567_890
    static let entitlements = ["pro": ["pro.monthly", "pro.yearly", "pro.basic"], "coins": ["coins.100"]]

    // MARK: - The example notification

    /// The current period before the notification, as the "before" state left it.
    private var currentPeriod: (purchaseMs: Int64, expiresMs: Int64) {
        // Apple sends these once the period is over (a renewal fails at the renewal date): the
        // example's period ends as it arrives.
        if type == "EXPIRED" || type == "DID_FAIL_TO_RENEW" || type == "GRACE_PERIOD_EXPIRED" && example.before != .inGrace {
            return (Self.baseMs - 30 * Self.dayMs, Self.baseMs)
        }
        return switch example.before {
        // Halfway through the grace period, or at its end for GRACE_PERIOD_EXPIRED.
        case .inGrace where type == "GRACE_PERIOD_EXPIRED":
            (Self.baseMs - Self.graceMs - 30 * Self.dayMs, Self.baseMs - Self.graceMs)
        case .inGrace: (Self.baseMs - 38 * Self.dayMs, Self.baseMs - 8 * Self.dayMs)
        case .expired: (Self.baseMs - 40 * Self.dayMs, Self.baseMs - 10 * Self.dayMs)
        default: (Self.baseMs - 15 * Self.dayMs, Self.baseMs + 15 * Self.dayMs)
        }
    }

    /// The transaction the example carries (nil when it carries none).
    var transaction: JSONValue? {
        guard !example.noTransaction else { return nil }
        let oneTime = example.productType != "Auto-Renewable Subscription"
        // A new period is as long as its product's: a year for the yearly plan an upgrade buys.
        let days: Int64 = example.productId == "pro.yearly" ? 365 : 30
        let (purchase, expires) =
            example.newPeriod
            ? (Self.baseMs, Self.baseMs + days * Self.dayMs)
            : type == "RENEWAL_EXTENDED" ? (currentPeriod.purchaseMs, currentPeriod.expiresMs + 7 * Self.dayMs) : currentPeriod
        var members: [String: JSONValue] = [
            "transactionId": .string(example.newPeriod || oneTime ? "3000000000000002" : "3000000000000001"),
            "originalTransactionId": .string(oneTime ? "3000000000000002" : Self.originalTransactionId),
            "bundleId": .string(Self.bundleId), "productId": .string(example.productId),
            "purchaseDate": .integer(oneTime ? Self.baseMs : purchase),
            "originalPurchaseDate": .integer(oneTime ? Self.baseMs : currentPeriod.purchaseMs), "quantity": .integer(1),
            "type": .string(example.productType),
            "inAppOwnershipType": .string(example.before == .familyShared ? "FAMILY_SHARED" : "PURCHASED"),
            "signedDate": .integer(Self.baseMs), "environment": .string("Production"), "storefront": .string("USA"),
            "storefrontId": .string("143441"), "price": .integer(example.productId == "pro.yearly" ? 99_990 : 9_990),
            "currency": .string("USD"),
            // Apple: RENEWAL for an automatic renewal only; an upgrade (effective at once) and a
            // resubscription are the customer's purchases.
            "transactionReason": .string(example.newPeriod && type == "DID_RENEW" ? "RENEWAL" : "PURCHASE"),
        ]
        if !oneTime {
            members["expiresDate"] = .integer(expires)
            members["subscriptionGroupIdentifier"] = .string("21000001")
            members["webOrderLineItemId"] = .string(example.newPeriod ? "4000000000000002" : "4000000000000001")
        }
        if example.revoked {
            members["revocationDate"] = .integer(Self.baseMs)
            members["revocationReason"] = .integer(0)
            members["revocationType"] = .string(type == "REVOKE" ? "FAMILY_REVOKE" : "REFUND_FULL")
        }
        return .object(members)
    }

    /// The renewal info the example carries (auto-renewable subscriptions only).
    var renewalInfo: JSONValue? {
        guard !example.noTransaction, example.productType == "Auto-Renewable Subscription" else { return nil }
        var members: [String: JSONValue] = [
            "originalTransactionId": .string(Self.originalTransactionId), "productId": .string(example.productId),
            "autoRenewProductId": .string(example.autoRenewProductId ?? example.productId),
            "autoRenewStatus": .integer(example.autoRenewOn ? 1 : 0), "signedDate": .integer(Self.baseMs),
            "environment": .string("Production"), "recentSubscriptionStartDate": .integer(currentPeriod.purchaseMs),
        ]
        switch (type, subtype) {
        case ("DID_FAIL_TO_RENEW", let subtype):
            members["isInBillingRetryPeriod"] = .bool(true)
            members["expirationIntent"] = .integer(2)
            if subtype == "GRACE_PERIOD" {
                members["gracePeriodExpiresDate"] = .integer(currentPeriod.expiresMs + Self.graceMs)
            }
        case ("EXPIRED", let subtype):
            let intent: Int64 =
                switch subtype {
                case "VOLUNTARY": 1
                case "BILLING_RETRY": 2
                case "PRICE_INCREASE": 3
                case "PRODUCT_NOT_FOR_SALE": 4
                default: 5
                }
            members["expirationIntent"] = .integer(intent)
            members["isInBillingRetryPeriod"] = .bool(false)
        case ("PRICE_INCREASE", let subtype):
            members["priceIncreaseStatus"] = .integer(subtype == "ACCEPTED" ? 1 : 0)
        case ("GRACE_PERIOD_EXPIRED", _):
            members["isInBillingRetryPeriod"] = .bool(true)
            members["gracePeriodExpiresDate"] = .integer(currentPeriod.expiresMs + Self.graceMs)
        default:
            break
        }
        if case .some = example.autoRenewProductId { members["renewalDate"] = .integer(currentPeriod.expiresMs) }
        return .object(members)
    }

    /// The decoded notification: `data` (or `summary`, `externalPurchaseToken`, `appData`) with the
    /// transaction, renewal info and app transaction shown decoded under their `signed...Info` keys.
    func decodedNotification() -> JSONValue {
        var members: [String: JSONValue] = [
            "notificationType": .string(type),
            "notificationUUID": .string(EventID.nameBased("\(type)/\(subtype ?? "-")", in: "revenuedot:docs")),
            "version": .string("2.0"), "signedDate": .integer(Self.baseMs),
        ]
        members["subtype"] = subtype.map(JSONValue.string)
        let identity: [String: JSONValue] = [
            "appAppleId": .integer(Self.appAppleId), "bundleId": .string(Self.bundleId), "environment": .string("Production"),
        ]
        switch (type, subtype) {
        case ("RENEWAL_EXTENSION", "SUMMARY"):
            members["summary"] = .object(
                identity.merging([
                    "requestIdentifier": .string("5c1d1b4e-2b73-4f1e-9d35-5d2c1e6ad1a0"), "productId": .string("pro.monthly"),
                    "storefrontCountryCodes": .array([.string("USA")]), "succeededCount": .integer(1_204),
                    "failedCount": .integer(3),
                ]) { first, _ in first })
        case ("EXTERNAL_PURCHASE_TOKEN", let subtype):
            var token: [String: JSONValue] = [
                "externalPurchaseId": .string("b2a7a5a2-7c44-4a0f-9ef4-0d3c6b1f2e11"), "tokenCreationDate": .integer(Self.baseMs),
                "appAppleId": .integer(Self.appAppleId), "bundleId": .string(Self.bundleId),
            ]
            // CREATED and ACTIVE_TOKEN_REMINDER are about tokens of the External Purchase Custom
            // Link API, which carry their type and expiry; UNREPORTED's link-out token has neither.
            if subtype != "UNREPORTED" {
                // A monthly reminder is about a token still in use: a services one.
                token["tokenType"] = .string(subtype == "ACTIVE_TOKEN_REMINDER" ? "SERVICES" : "ACQUISITION")
                token["tokenExpirationDate"] = .integer(Self.baseMs + 30 * 86_400_000)
            }
            members["externalPurchaseToken"] = .object(token)
        case ("RESCIND_CONSENT", _):
            var appData = identity
            appData["signedAppTransactionInfo"] = .object([
                "receiptType": .string("Production"), "appAppleId": .integer(Self.appAppleId),
                "bundleId": .string(Self.bundleId), "applicationVersion": .string("42"),
                "originalApplicationVersion": .string("1"), "originalPurchaseDate": .integer(Self.baseMs - 400 * 86_400_000),
                "receiptCreationDate": .integer(Self.baseMs), "appTransactionId": .string("704236471962138912"),
                "originalPlatform": .string("iOS"),
            ])
            members["appData"] = .object(appData)
        default:
            var data = identity
            data["bundleVersion"] = .string("42")
            if let transaction { data["signedTransactionInfo"] = transaction }
            if let renewalInfo { data["signedRenewalInfo"] = renewalInfo }
            if example.productType == "Auto-Renewable Subscription", !example.noTransaction {
                data["status"] = .integer(example.revoked ? 5 : 1)
            }
            if type == "CONSUMPTION_REQUEST" { data["consumptionRequestReason"] = .string("UNINTENDED_PURCHASE") }
            members["data"] = .object(data)
        }
        return .object(members)
    }

    /// The example as Apple would POST it: each nested payload signed, then the whole.
    func signed(with chain: TestChain) throws -> String {
        guard case .object(var members) = decodedNotification() else { return "" }
        for (container, keys) in [
            ("data", ["signedTransactionInfo", "signedRenewalInfo"]), ("appData", ["signedAppTransactionInfo"]),
        ] {
            guard case .object(var data)? = members[container] else { continue }
            for key in keys {
                if let nested = data[key] { data[key] = .string(try chain.sign(payload: Data(nested.serialized().utf8))) }
            }
            members[container] = .object(data)
        }
        return try chain.sign(payload: Data(JSONValue.object(members).serialized().utf8))
    }

    // MARK: - Running it

    /// Signs the example with `chain`, verifies it against `chain`'s root as ingest would, and
    /// applies it after the "before" state.
    func run(chain: TestChain) throws -> CatalogOutcome {
        let verifier = try SignedDataVerifier(
            rootCertificates: [chain.root],
            policy: VerificationPolicy(bundleId: Self.bundleId, appAppleId: Self.appAppleId, environments: [.production]))
        let now = Date(timeIntervalSince1970: Double(Self.baseMs) / 1000)
        let verified = try verifier.verifyNotification(try signed(with: chain), now: now)
        let facts = VerifiedNotificationFacts(
            notificationUUID: verified.notification.payload.notificationUUID ?? "",
            payload: verified.notification.payload, transaction: verified.transaction?.payload,
            renewalInfo: verified.renewalInfo?.payload)
        var ledger = try prepared()
        let effects = ledger.apply(.notificationReceived(facts), at: now)
        var outcome = CatalogOutcome(effects: effects, ledger: ledger, atMs: Self.baseMs)
        // A timer already due (access has ended) fires on the scheduler's next tick: show what it records.
        for case .schedule(let timer) in effects where timer.fireAtMs <= Self.baseMs {
            let tick = Date(timeIntervalSince1970: Double(max(timer.fireAtMs, Self.baseMs) + 1000) / 1000)
            outcome.timerEvents += ledger.apply(.timerFired(timer), at: tick).compactMap { effect in
                if case .emit(let event) = effect { return CatalogOutcome.describe(event) }
                return nil
            }
        }
        return outcome
    }

    /// A ledger holding the subscription in the case's "before" state.
    private func prepared() throws -> Ledger {
        var ledger = Ledger(
            configuration: LedgerConfiguration(
                appId: "demo", entitlements: Self.entitlements, trackNewPurchasesFromServerNotifications: true))
        let (purchase, expires) = currentPeriod
        func apply(_ type: String, _ subtype: String?, atMs: Int64, renewal: [String: JSONValue] = [:], revoked: Bool = false)
            throws
        {
            var transaction: [String: JSONValue] = [
                "transactionId": .string("3000000000000001"), "originalTransactionId": .string(Self.originalTransactionId),
                "webOrderLineItemId": .string("4000000000000001"), "bundleId": .string(Self.bundleId),
                "productId": .string("pro.monthly"), "subscriptionGroupIdentifier": .string("21000001"),
                "purchaseDate": .integer(purchase), "originalPurchaseDate": .integer(purchase), "expiresDate": .integer(expires),
                "quantity": .integer(1), "type": .string("Auto-Renewable Subscription"),
                "inAppOwnershipType": .string(example.before == .familyShared ? "FAMILY_SHARED" : "PURCHASED"),
                "signedDate": .integer(atMs), "environment": .string("Production"), "storefront": .string("USA"),
                "price": .integer(9_990), "currency": .string("USD"), "transactionReason": .string("PURCHASE"),
            ]
            if revoked {
                transaction["revocationDate"] = .integer(atMs)
                transaction["revocationReason"] = .integer(0)
                transaction["revocationType"] = .string("REFUND_FULL")
            }
            var renewalInfo: [String: JSONValue] = [
                "originalTransactionId": .string(Self.originalTransactionId), "productId": .string("pro.monthly"),
                "autoRenewProductId": .string("pro.monthly"), "autoRenewStatus": .integer(1), "signedDate": .integer(atMs),
                "environment": .string("Production"),
            ]
            renewalInfo.merge(renewal) { _, new in new }
            let decoder = JSONValueDecoder()
            let facts = VerifiedNotificationFacts(
                notificationUUID: EventID.nameBased("before/\(type)/\(subtype ?? "-")/\(atMs)", in: "revenuedot:docs"),
                notificationType: NotificationTypeV2(rawValue: type), subtype: subtype.map { Subtype(rawValue: $0) },
                signedDateMs: atMs, environment: .production,
                transaction: try decoder.decode(JWSTransactionDecodedPayload.self, from: .object(transaction)),
                renewalInfo: try decoder.decode(JWSRenewalInfoDecodedPayload.self, from: .object(renewalInfo)))
            _ = ledger.apply(.notificationReceived(facts), at: Date(timeIntervalSince1970: Double(atMs) / 1000))
        }
        switch example.before {
        case .nothing:
            break
        case .active, .familyShared:
            try apply("SUBSCRIBED", "INITIAL_BUY", atMs: purchase)
        case .autoRenewOff:
            try apply("SUBSCRIBED", "INITIAL_BUY", atMs: purchase)
            try apply(
                "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", atMs: Self.baseMs - 5 * Self.dayMs,
                renewal: ["autoRenewStatus": .integer(0)])
        case .inGrace:
            try apply("SUBSCRIBED", "INITIAL_BUY", atMs: purchase)
            try apply(
                "DID_FAIL_TO_RENEW", "GRACE_PERIOD", atMs: expires,
                renewal: [
                    "isInBillingRetryPeriod": .bool(true), "gracePeriodExpiresDate": .integer(expires + Self.graceMs),
                    "expirationIntent": .integer(2),
                ])
        case .inBillingRetry:
            try apply("SUBSCRIBED", "INITIAL_BUY", atMs: purchase)
            try apply(
                "DID_FAIL_TO_RENEW", nil, atMs: expires,
                renewal: ["isInBillingRetryPeriod": .bool(true), "expirationIntent": .integer(2)])
        case .expired:
            try apply("SUBSCRIBED", "INITIAL_BUY", atMs: purchase)
            try apply(
                "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", atMs: purchase + Self.dayMs,
                renewal: ["autoRenewStatus": .integer(0)])
            try apply(
                "EXPIRED", "VOLUNTARY", atMs: expires,
                renewal: ["autoRenewStatus": .integer(0), "expirationIntent": .integer(1)])
            // The scheduler recorded the lapse's EXPIRATION when access ended, as a server does.
            let timer = ExpirationTimer(originalTransactionId: Self.originalTransactionId, fireAtMs: expires)
            _ = ledger.apply(.timerFired(timer), at: Date(timeIntervalSince1970: Double(expires) / 1000))
        case .refunded:
            try apply("SUBSCRIBED", "INITIAL_BUY", atMs: purchase)
            try apply("REFUND", nil, atMs: Self.baseMs - 2 * Self.dayMs, revoked: true)
        }
        return ledger
    }
}
