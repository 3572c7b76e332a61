import Crypto
/// The signed record of the customer's purchase of the app itself.
///
/// Its environment is `receiptType`; `receiptCreationDate` is when the App Store signed it.
/// Dates are UNIX time in milliseconds.
///
/// https://developer.apple.com/documentation/storekit/apptransaction
public struct AppTransaction: Codable, Hashable, Sendable {
    public var receiptType: AppStoreEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    public var applicationVersion: String?
    public var versionExternalIdentifier: Int64?
    @Milliseconds public var receiptCreationDate: Int64?
    @Milliseconds public var originalPurchaseDate: Int64?
    public var originalApplicationVersion: String?
    /// Base64, to check that the app transaction belongs to a device.
    public var deviceVerification: String?
    /// The UUID used to compute `deviceVerification`.
    public var deviceVerificationNonce: String?
    @Milliseconds public var preorderDate: Int64?
    public var appTransactionId: String?
    public var originalPlatform: PurchasePlatform?

    public init(
        receiptType: AppStoreEnvironment? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        applicationVersion: String? = nil,
        versionExternalIdentifier: Int64? = nil,
        receiptCreationDate: Int64? = nil,
        originalPurchaseDate: Int64? = nil,
        originalApplicationVersion: String? = nil,
        deviceVerification: String? = nil,
        deviceVerificationNonce: String? = nil,
        preorderDate: Int64? = nil,
        appTransactionId: String? = nil,
        originalPlatform: PurchasePlatform? = nil
    ) {
        self.receiptType = receiptType
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.applicationVersion = applicationVersion
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.deviceVerification = deviceVerification
        self.deviceVerificationNonce = deviceVerificationNonce
        self.preorderDate = preorderDate
        self.appTransactionId = appTransactionId
        self.originalPlatform = originalPlatform
    }
}
