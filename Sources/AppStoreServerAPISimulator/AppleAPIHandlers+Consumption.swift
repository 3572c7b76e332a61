import AppStore
import AppStoreServerAPI
import Foundation
import HTTP
import JSON

/// Send Consumption Information in both of Apple's versions, checked as Apple documents: version
/// 2 for every purchase but Advanced Commerce ones, version 1 for those. Version 2's newer
/// errors are answered 4000000 with the error's name, which is what clients tell apart.
extension AppleAPIHandlers {
    static func sendConsumption(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        let body: JSONValue
        switch consentedBody(request) {
        case .success(let checked): body = checked
        case .failure(let refusal): return refusal.response
        }
        guard case .string(let delivery) = body["deliveryStatus"], DeliveryStatus(rawValue: delivery).isKnown else {
            return error(400, 4_000_036, "Invalid request. The delivery status field is invalid.")
        }
        let preference = body["refundPreference"]?.stringValue.map(RefundPreference.init(rawValue:))
        if let preference, !preference.isKnown {
            return error(400, 4_000_000, "InvalidRefundPreferenceError: the refund preference is invalid.")
        }
        var share: Int64?
        if let given = body["consumptionPercentage"] {
            guard case .integer(let value) = given, (0...100_000).contains(value) else {
                return error(400, 4_000_000, "ConsumptionPercentageOutOfRangeError: the consumption percentage is invalid.")
            }
            guard delivery == "DELIVERED" || value == 0 else {
                return error(
                    400, 4_000_000,
                    "UndeliveredConsumptionPercentageNonZeroError: the consumption percentage must be zero for the delivery status."
                )
            }
            share = value
        }
        guard let found = transaction(id, of: app, in: store) else {
            return error(404, 4_040_010, "Transaction id not found.")
        }
        if found.payload["advancedCommerceInfo"] != nil {
            return error(
                400, 4_000_000,
                "AdvancedCommerceTransactionNotSupportedError: Advanced Commerce API transactions are not supported by the endpoint."
            )
        }
        if found.payload["inAppOwnershipType"]?.stringValue == "FAMILY_SHARED" {
            return error(400, 4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.")
        }
        // Apple computes a subscription's consumption itself; a prorated refund of anything else
        // needs a share strictly between nothing and all.
        if found.payload["type"]?.stringValue == "Auto-Renewable Subscription" {
            if share != nil {
                return error(
                    400, 4_000_000,
                    "ConsumptionPercentageAutoRenewableSubscriptionError: the consumption percentage field is unsupported for auto-renewable subscription transactions."
                )
            }
        } else if preference == .grantProrated, !(1..<100_000).contains(share ?? 0) {
            return error(
                400, 4_000_000,
                "ConsumptionPercentageOutOfRangeError: GRANT_PRORATED needs a consumption percentage greater than 0 and less than 100000."
            )
        }
        store.state.withLock { $0.consumption.append((id, body)) }
        return HTTPResponse(status: 202)
    }

    /// Version 1: every member but `refundPreference` required, each number in Apple's range.
    static func sendConsumptionV1(_ store: SimulatedAppStore, _ request: HTTPRequest, _ app: App) -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        let body: JSONValue
        switch consentedBody(request) {
        case .success(let checked): body = checked
        case .failure(let refusal): return refusal.response
        }
        let ranges: [(String, ClosedRange<Int64>, Int64)] = [
            ("consumptionStatus", 0...3, 4_000_034), ("platform", 0...2, 4_000_039), ("deliveryStatus", 0...5, 4_000_036),
            ("accountTenure", 0...7, 4_000_032), ("playTime", 0...7, 4_000_040), ("lifetimeDollarsRefunded", 0...7, 4_000_038),
            ("lifetimeDollarsPurchased", 0...7, 4_000_037), ("userStatus", 0...4, 4_000_042),
        ]
        for (name, range, code) in ranges {
            guard case .integer(let value) = body[name], range.contains(value) else {
                return error(400, code, "Invalid request. The \(name) field is invalid.")
            }
        }
        if let preference = body["refundPreference"] {
            guard case .integer(let value) = preference, (0...3).contains(value) else {
                return error(400, 4_000_000, "Invalid request. The refund preference field is invalid.")
            }
        }
        guard case .string(let token) = body["appAccountToken"], token.isEmpty || UUID(uuidString: token) != nil else {
            return error(400, 4_000_033, "Invalid request. The app account token field must be empty or a UUID.")
        }
        guard let found = transaction(id, of: app, in: store) else {
            return error(404, 4_040_010, "Transaction id not found.")
        }
        guard ["Consumable", "Auto-Renewable Subscription"].contains(found.payload["type"]?.stringValue) else {
            return error(400, 4_000_047, "Invalid request. The transaction id is not a supported In-App Purchase type.")
        }
        store.state.withLock { $0.consumptionV1.append((id, body)) }
        return HTTPResponse(status: 202)
    }

    /// A refusal as Apple answers it.
    struct Refused: Error {
        let response: HTTPResponse
    }

    /// The body both versions start with: a JSON object with the customer's consent and
    /// `sampleContentProvided`; else Apple's answer.
    private static func consentedBody(_ request: HTTPRequest) -> Result<JSONValue, Refused> {
        guard let body = try? JSONValue(parsing: request.body), case .object = body else {
            return .failure(Refused(response: error(400, 4_000_000, "Bad request.")))
        }
        guard body["customerConsented"] == .bool(true) else {
            return .failure(
                Refused(response: error(400, 4_000_035, "Invalid request. The customer consented field is invalid.")))
        }
        guard case .bool = body["sampleContentProvided"] else {
            return .failure(
                Refused(response: error(400, 4_000_041, "Invalid request. The sample content provided field is invalid.")))
        }
        return .success(body)
    }

    /// The transaction whose `transactionId` is `id`: Apple's consumption paths take that, not
    /// an original transaction id.
    private static func transaction(_ id: String, of app: App, in store: SimulatedAppStore) -> Transaction? {
        store.state.withLock { state in state.transactions[app.bundleId]?.last { $0.transactionId == id } }
    }
}
