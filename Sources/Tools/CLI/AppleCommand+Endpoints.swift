import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import Server

extension AppleCommand {
    /// What each endpoint takes: how many positional arguments, and which options and flags
    /// beside `--config`, `--app` and `--environment`. Anything else would be ignored, so it is
    /// refused.
    static let shapes: [String: (positionals: Int, options: Set<String>)] = [
        "transaction-info": (1, []),
        "transaction-history": (
            1,
            [
                "all", "revision", "start-date", "end-date", "product-id", "product-type", "sort", "subscription-group",
                "ownership", "revoked",
            ]
        ),
        "subscription-statuses": (1, ["status"]),
        "notification-history": (
            0, ["start-date", "end-date", "notification-type", "subtype", "transaction-id", "only-failures", "pagination-token"]
        ),
        "request-test-notification": (0, []),
        "test-notification-status": (1, []),
        "send-consumption": (
            1, ["delivery-status", "sample-content-provided", "consumption-percentage", "refund-preference"]
        ),
        "send-consumption-v1": (
            1,
            ["delivery-status", "sample-content-provided", "consumption-percentage", "refund-preference", "app-account-token"]
        ),
        "extend-renewal-date": (1, ["days", "reason", "request-identifier"]),
        "mass-extend-renewal-date": (0, ["product-id", "days", "reason", "request-identifier", "storefront"]),
        "mass-extend-status": (2, []),
        "look-up-order": (1, []),
        "refund-history": (1, ["revision"]),
        "set-app-account-token": (2, []),
    ]

    /// Refuses arguments `endpointName` would ignore: extra positionals, another endpoint's options.
    func checkShape() throws(UsageError) {
        guard let shape = Self.shapes[endpointName] else { throw UsageError("unknown endpoint \"\(endpointName)\"") }
        if parsed.positionals.count > shape.positionals {
            let extra = parsed.positionals[shape.positionals...].joined(separator: " ")
            throw UsageError(
                "\(endpointName) takes \(shape.positionals == 0 ? "no" : "\(shape.positionals)") argument"
                    + "\(shape.positionals == 1 ? "" : "s"), not also \(extra)")
        }
        try parsed.refuseUnused(except: shape.options.union(["app", "environment"]), by: endpointName)
    }

    /// The call the arguments describe; a usage error for anything missing or malformed.
    func endpoint(now: Date) throws(UsageError) -> Endpoint {
        try checkShape()
        // Apple's transaction ids are decimal: anything else would only be refused by Apple.
        if [
            "transaction-info", "transaction-history", "subscription-statuses", "send-consumption", "send-consumption-v1",
            "extend-renewal-date",
            "refund-history", "set-app-account-token",
        ].contains(endpointName),
            let id = parsed.positionals.first, !id.isEmpty, !id.isASCIIDigits
        {
            throw UsageError("\"\(id)\" is not a transaction id (Apple's are decimal numbers)")
        }
        switch endpointName {
        case "transaction-info":
            return .transactionInfo(transactionId: try positional(0, "a TRANSACTION_ID"))
        case "transaction-history":
            let types = try parsed.values("product-type").map { (text) throws(UsageError) -> HistoryProductType in
                let type = HistoryProductType(rawValue: text)
                guard type.isKnown else { throw UsageError("--product-type \"\(text)\" is not a product type") }
                return type
            }
            let (start, end) = (try date("start-date"), try date("end-date"))
            if let start, let end, start > end { throw UsageError("--start-date is after --end-date") }
            let filter = TransactionHistoryRequest(
                startDate: start, endDate: end, productIds: parsed.values("product-id"),
                productTypes: types, sort: try known("sort", HistorySortOrder.self),
                subscriptionGroupIdentifiers: parsed.values("subscription-group"),
                inAppOwnershipType: try known("ownership", InAppOwnershipType.self),
                revoked: try bool("revoked"))
            return .transactionHistory(
                transactionId: try positional(0, "a TRANSACTION_ID"), filter: filter, revision: parsed.value("revision"))
        case "subscription-statuses":
            let statuses = try parsed.values("status").map { (text) throws(UsageError) -> SubscriptionStatus in
                guard let value = Int32(text), (1...5).contains(value) else {
                    throw UsageError("--status must be 1 to 5, not \"\(text)\"")
                }
                return SubscriptionStatus(rawValue: value)
            }
            return .allSubscriptionStatuses(transactionId: try positional(0, "a TRANSACTION_ID"), statuses: statuses)
        case "notification-history":
            guard let start = try date("start-date") else { throw UsageError("notification-history needs --start-date") }
            if let id = parsed.value("transaction-id"), !id.isASCIIDigits {
                throw UsageError("--transaction-id \"\(id)\" is not a transaction id (Apple's are decimal numbers)")
            }
            let type = parsed.value("notification-type").map { NotificationTypeV2(rawValue: $0) }
            let subtype = parsed.value("subtype").map { Subtype(rawValue: $0) }
            // Apple filters by a subtype only within a type (its InvalidNotificationTypeError).
            if subtype != nil, type == nil { throw UsageError("--subtype needs --notification-type") }
            let request = NotificationHistoryRequest(
                startDate: start, endDate: try date("end-date") ?? Int64(now.timeIntervalSince1970 * 1000),
                notificationType: type, notificationSubtype: subtype, transactionId: parsed.value("transaction-id"),
                onlyFailures: parsed.flags.contains("only-failures") ? true : nil)
            return .notificationHistory(request, paginationToken: parsed.value("pagination-token"))
        case "request-test-notification":
            return .requestTestNotification
        case "test-notification-status":
            return .testNotificationStatus(token: try positional(0, "a TOKEN"))
        case "send-consumption", "send-consumption-v1":
            let delivery = try known("delivery-status", DeliveryStatus.self)
            guard let delivery else { throw UsageError("\(endpointName) needs --delivery-status") }
            guard let sample = try bool("sample-content-provided") else {
                throw UsageError("\(endpointName) needs --sample-content-provided true|false")
            }
            let request = ConsumptionRequest(
                customerConsented: true, sampleContentProvided: sample, deliveryStatus: delivery,
                consumptionPercentage: try integer("consumption-percentage", in: 0...100_000).map { Int32($0) },
                refundPreference: try known("refund-preference", RefundPreference.self))
            // Version 1 has no prorated refund (no preference instead): any share goes.
            if endpointName == "send-consumption", let share = request.consumptionPercentage,
                !ConsumptionRequest.allows(share: share, with: request.refundPreference)
            {
                throw UsageError("--refund-preference GRANT_PRORATED needs --consumption-percentage between 1 and 99999")
            }
            let id = try positional(0, "a TRANSACTION_ID")
            guard endpointName == "send-consumption-v1" else { return .sendConsumptionInformation(transactionId: id, request) }
            let token = parsed.value("app-account-token")
            if let token, UUID(uuidString: token) == nil {
                throw UsageError("--app-account-token \"\(token)\" is not a UUID")
            }
            return .sendConsumptionInformationV1(transactionId: id, ConsumptionRequestV1(request, appAccountToken: token))
        case "extend-renewal-date":
            let request = ExtendRenewalDateRequest(
                extendByDays: Int32(try requiredInteger("days", in: 1...90)),
                extendReasonCode: ExtendReasonCode(rawValue: Int32(try requiredInteger("reason", in: 0...3))),
                requestIdentifier: parsed.value("request-identifier") ?? UUID().uuidString.lowercased())
            return .extendRenewalDate(originalTransactionId: try positional(0, "an ORIGINAL_TRANSACTION_ID"), request)
        case "mass-extend-renewal-date":
            // Apple's storefronts are ISO 3166-1 alpha-3 codes: USA, FRA.
            for code in parsed.values("storefront") where code.count != 3 || !code.allSatisfy({ ("A"..."Z").contains($0) }) {
                throw UsageError("--storefront \"\(code)\" is not a storefront (three capital letters, such as USA)")
            }
            let request = MassExtendRenewalDateRequest(
                extendByDays: Int32(try requiredInteger("days", in: 1...90)),
                extendReasonCode: ExtendReasonCode(rawValue: Int32(try requiredInteger("reason", in: 0...3))),
                requestIdentifier: parsed.value("request-identifier") ?? UUID().uuidString.lowercased(),
                storefrontCountryCodes: parsed.values("storefront").isEmpty ? nil : parsed.values("storefront"),
                productId: try required("product-id"))
            return .extendRenewalDatesForAllActiveSubscribers(request)
        case "mass-extend-status":
            return .renewalDateExtensionStatus(
                productId: try positional(0, "a PRODUCT_ID"), requestIdentifier: try positional(1, "a REQUEST_IDENTIFIER"))
        case "look-up-order":
            return .lookUpOrderId(orderId: try positional(0, "an ORDER_ID"))
        case "refund-history":
            return .refundHistory(transactionId: try positional(0, "a TRANSACTION_ID"), revision: parsed.value("revision"))
        case "set-app-account-token":
            let token = try positional(1, "a UUID")
            guard UUID(uuidString: token) != nil else { throw UsageError("\"\(token)\" is not a UUID") }
            return .setAppAccountToken(
                originalTransactionId: try positional(0, "an ORIGINAL_TRANSACTION_ID"),
                UpdateAppAccountTokenRequest(appAccountToken: token))
        default:
            throw UsageError("unknown endpoint \"\(endpointName)\"")
        }
    }

    func requiredInteger(_ option: String, in range: ClosedRange<Int64>) throws(UsageError) -> Int64 {
        guard let value = try integer(option, in: range) else { throw UsageError("\(endpointName) needs --\(option)") }
        return value
    }
}

/// Dates on the command line: UNIX milliseconds, `YYYY-MM-DD` (midnight UTC) or ISO 8601.
enum CommandDates {
    /// The date `--option` gives, nil when not given; a one-line error for text that is none,
    /// and for a number that cannot be UNIX milliseconds of App Store times (seconds, say). 0,
    /// the start of UNIX time, asks for as far back as there is.
    static func option(_ option: String, in parsed: ParsedArguments) throws(UsageError) -> Int64? {
        guard let text = parsed.value(option) else { return nil }
        if let number = Int64(text), number != 0, number < minimumMilliseconds {
            throw UsageError(
                "--\(option) \(text) is before 1973 in UNIX milliseconds\(number > 0 ? " (UNIX seconds? add 000)" : ""): "
                    + "give UNIX milliseconds, YYYY-MM-DD or an ISO 8601 time")
        }
        guard let milliseconds = milliseconds(text) else {
            throw UsageError("--\(option) must be UNIX milliseconds, YYYY-MM-DD or an ISO 8601 time, not \"\(text)\"")
        }
        return milliseconds
    }

    /// 1973-03-03 in UNIX milliseconds: smaller numbers are taken for a mistake (today in UNIX
    /// seconds is about 1.8e9).
    static let minimumMilliseconds: Int64 = 100_000_000_000

    static func milliseconds(_ text: String) -> Int64? {
        if let number = Int64(text) { return number }
        if let date = try? Date(text, strategy: .iso8601) { return Int64(date.timeIntervalSince1970 * 1000) }
        // A day that does not exist (2026-02-30) is refused, not rolled into the next month.
        if let date = try? Date(text + "T00:00:00Z", strategy: .iso8601),
            date.formatted(.iso8601.year().month().day()) == text
        {
            return Int64(date.timeIntervalSince1970 * 1000)
        }
        return nil
    }
}
