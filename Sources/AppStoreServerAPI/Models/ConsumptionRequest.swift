import AppStore

/// What RevenueDot tells Apple about a purchase a customer asked to refund (Send Consumption
/// Information, version 2: every purchase but Advanced Commerce ones, `ConsumptionRequestV1`).
///
/// https://developer.apple.com/documentation/appstoreserverapi/consumptionrequest
public struct ConsumptionRequest: Codable, Hashable, Sendable {
    /// Whether the customer agreed to share the data: Apple refuses the request otherwise.
    public var customerConsented: Bool
    /// Whether the app offered a free sample or trial before the purchase.
    public var sampleContentProvided: Bool
    public var deliveryStatus: DeliveryStatus
    /// How much of the purchase was used, in thousandths of a percent (0 to 100,000): 0 when not
    /// delivered, never for an auto-renewable subscription, and strictly between 0 and 100,000
    /// with `GRANT_PRORATED`.
    public var consumptionPercentage: Int32?
    public var refundPreference: RefundPreference?

    public init(
        customerConsented: Bool,
        sampleContentProvided: Bool,
        deliveryStatus: DeliveryStatus,
        consumptionPercentage: Int32? = nil,
        refundPreference: RefundPreference? = nil
    ) {
        self.customerConsented = customerConsented
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }

    /// Whether `share` is one Apple takes with `preference` (ConsumptionPercentageOutOfRangeError):
    /// strictly between nothing and all for a prorated refund, 0 to 100,000 otherwise.
    public static func allows(share: Int32, with preference: RefundPreference?) -> Bool {
        preference == .grantProrated ? (1..<100_000).contains(share) : (0...100_000).contains(share)
    }
}
