import AppStore
import Foundation

/// One App Store Server API call, as a value: its method, path, query and body.
///
/// No I/O here: `AppStoreServerAPIClient` sends it. Paths and names follow Apple's
/// documentation (https://developer.apple.com/documentation/appstoreserverapi).
public enum Endpoint: Sendable {
    /// GET /inApps/v1/transactions/{transactionId}
    case transactionInfo(transactionId: String)
    /// GET /inApps/v2/history/{transactionId}: one page; pass the previous page's `revision`.
    case transactionHistory(transactionId: String, filter: TransactionHistoryRequest, revision: String?)
    /// GET /inApps/v1/subscriptions/{transactionId}, optionally only some statuses.
    case allSubscriptionStatuses(transactionId: String, statuses: [SubscriptionStatus])
    /// POST /inApps/v1/notifications/history: one page; pass the previous page's token.
    case notificationHistory(NotificationHistoryRequest, paginationToken: String?)
    /// POST /inApps/v1/notifications/test
    case requestTestNotification
    /// GET /inApps/v1/notifications/test/{testNotificationToken}
    case testNotificationStatus(token: String)
    /// PUT /inApps/v2/transactions/consumption/{transactionId}
    case sendConsumptionInformation(transactionId: String, ConsumptionRequest)
    /// PUT /inApps/v1/transactions/consumption/{transactionId}: for Advanced Commerce purchases only.
    case sendConsumptionInformationV1(transactionId: String, ConsumptionRequestV1)
    /// PUT /inApps/v1/subscriptions/extend/{originalTransactionId}
    case extendRenewalDate(originalTransactionId: String, ExtendRenewalDateRequest)
    /// POST /inApps/v1/subscriptions/extend/mass
    case extendRenewalDatesForAllActiveSubscribers(MassExtendRenewalDateRequest)
    /// GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}
    case renewalDateExtensionStatus(productId: String, requestIdentifier: String)
    /// GET /inApps/v1/lookup/{orderId}
    case lookUpOrderId(orderId: String)
    /// GET /inApps/v2/refund/lookup/{transactionId}: one page; pass the previous page's `revision`.
    case refundHistory(transactionId: String, revision: String?)
    /// PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken
    case setAppAccountToken(originalTransactionId: String, UpdateAppAccountTokenRequest)

    /// The name used on the command line and in metrics.
    public var name: String {
        switch self {
        case .transactionInfo: "transaction-info"
        case .transactionHistory: "transaction-history"
        case .allSubscriptionStatuses: "subscription-statuses"
        case .notificationHistory: "notification-history"
        case .requestTestNotification: "request-test-notification"
        case .testNotificationStatus: "test-notification-status"
        case .sendConsumptionInformation: "send-consumption"
        case .sendConsumptionInformationV1: "send-consumption-v1"
        case .extendRenewalDate: "extend-renewal-date"
        case .extendRenewalDatesForAllActiveSubscribers: "mass-extend-renewal-date"
        case .renewalDateExtensionStatus: "mass-extend-status"
        case .lookUpOrderId: "look-up-order"
        case .refundHistory: "refund-history"
        case .setAppAccountToken: "set-app-account-token"
        }
    }

    public var method: String {
        switch self {
        case .notificationHistory, .requestTestNotification, .extendRenewalDatesForAllActiveSubscribers: "POST"
        case .sendConsumptionInformation, .sendConsumptionInformationV1, .extendRenewalDate, .setAppAccountToken: "PUT"
        default: "GET"
        }
    }

    /// The path, each value percent-encoded as one segment.
    public var path: String {
        switch self {
        case .transactionInfo(let id): "/inApps/v1/transactions/\(Self.segment(id))"
        case .transactionHistory(let id, _, _): "/inApps/v2/history/\(Self.segment(id))"
        case .allSubscriptionStatuses(let id, _): "/inApps/v1/subscriptions/\(Self.segment(id))"
        case .notificationHistory: "/inApps/v1/notifications/history"
        case .requestTestNotification: "/inApps/v1/notifications/test"
        case .testNotificationStatus(let token): "/inApps/v1/notifications/test/\(Self.segment(token))"
        case .sendConsumptionInformation(let id, _): "/inApps/v2/transactions/consumption/\(Self.segment(id))"
        case .sendConsumptionInformationV1(let id, _): "/inApps/v1/transactions/consumption/\(Self.segment(id))"
        case .extendRenewalDate(let id, _): "/inApps/v1/subscriptions/extend/\(Self.segment(id))"
        case .extendRenewalDatesForAllActiveSubscribers: "/inApps/v1/subscriptions/extend/mass"
        case .renewalDateExtensionStatus(let product, let request):
            "/inApps/v1/subscriptions/extend/mass/\(Self.segment(product))/\(Self.segment(request))"
        case .lookUpOrderId(let order): "/inApps/v1/lookup/\(Self.segment(order))"
        case .refundHistory(let id, _): "/inApps/v2/refund/lookup/\(Self.segment(id))"
        case .setAppAccountToken(let id, _): "/inApps/v1/transactions/\(Self.segment(id))/appAccountToken"
        }
    }

    /// The query parameters, in order; repeated names once per value.
    public var queryItems: [(String, String)] {
        switch self {
        case .transactionHistory(_, let filter, let revision):
            (revision.map { [("revision", $0)] } ?? []) + filter.queryItems
        case .allSubscriptionStatuses(_, let statuses): statuses.map { ("status", String($0.rawValue)) }
        case .notificationHistory(_, let token): token.map { [("paginationToken", $0)] } ?? []
        case .refundHistory(_, let revision): revision.map { [("revision", $0)] } ?? []
        default: []
        }
    }

    /// The path and its query, as sent.
    public var target: String {
        let query = queryItems.map { "\(Self.queryComponent($0.0))=\(Self.queryComponent($0.1))" }
        return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
    }

    /// The JSON body, nil for calls without one.
    public func body() throws -> Data? {
        switch self {
        case .notificationHistory(let request, _): try Self.encode(request)
        case .sendConsumptionInformation(_, let request): try Self.encode(request)
        case .sendConsumptionInformationV1(_, let request): try Self.encode(request)
        case .extendRenewalDate(_, let request): try Self.encode(request)
        case .extendRenewalDatesForAllActiveSubscribers(let request): try Self.encode(request)
        case .setAppAccountToken(_, let request): try Self.encode(request)
        default: nil
        }
    }

    // MARK: - Encoding

    private static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Unreserved characters (RFC 3986) are kept; every other byte is escaped.
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    static func segment(_ value: String) -> String { escaped(value) }
    static func queryComponent(_ value: String) -> String { escaped(value) }

    private static func escaped(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}
