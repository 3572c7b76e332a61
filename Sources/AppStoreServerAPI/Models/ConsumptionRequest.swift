import AppStore

/// What RevenueDot tells Apple about a purchase a customer asked to refund (Send Consumption Information, version 2).
///
/// https://developer.apple.com/documentation/appstoreserverapi/consumptionrequest
public struct ConsumptionRequest: Codable, Hashable, Sendable {
    /// Whether the customer agreed to share the data: Apple refuses the request otherwise.
    public var customerConsented: Bool?
    /// Whether the app offered a free sample or trial before the purchase.
    public var sampleContentProvided: Bool?
    public var deliveryStatus: DeliveryStatus?
    /// How much of the purchase was used, in thousandths of a percent (0 to 100,000); 0 when not delivered, absent for a prorated refund of a subscription.
    public var consumptionPercentage: Int32?
    public var refundPreference: RefundPreference?

    public init(
        customerConsented: Bool? = nil,
        sampleContentProvided: Bool? = nil,
        deliveryStatus: DeliveryStatus? = nil,
        consumptionPercentage: Int32? = nil,
        refundPreference: RefundPreference? = nil
    ) {
        self.customerConsented = customerConsented
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }
}
