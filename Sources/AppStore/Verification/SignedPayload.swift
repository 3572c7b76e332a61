/// A payload type App Store signs: how to date it and which claims to check.
///
/// Each conformance states Apple's per-type rule (reference §3.2 step 8): notifications check
/// app and environment, transactions bundle and environment, renewal info environment only
/// (it carries no bundle ID), app transactions app and `receiptType`.
public protocol SignedPayload: Codable, Sendable, PayloadNumbers {
    /// A name for messages: "notification", "transaction", ...
    static var payloadName: String { get }
    /// The moment certificate validity is judged at, in ms since 1970; nil means now.
    var effectiveDate: Int64? { get }
    /// The environment the payload claims, before any verification.
    var claimedEnvironment: AppStoreEnvironment? { get }
    /// Throws `invalidAppIdentifier` or `invalidEnvironment` when the claims do not match.
    func checkClaims(_ policy: VerificationPolicy) throws(VerificationError)
}

extension ResponseBodyV2DecodedPayload: SignedPayload {
    public static var payloadName: String { "notification" }
    public var effectiveDate: Int64? { signedDate }
    public var claimedEnvironment: AppStoreEnvironment? { appIdentity.environment }

    public func checkClaims(_ policy: VerificationPolicy) throws(VerificationError) {
        let identity = appIdentity
        try policy.checkApp(bundleId: identity.bundleId, appAppleId: identity.appAppleId, environment: identity.environment)
        try policy.checkEnvironment(identity.environment)
    }
}

extension JWSTransactionDecodedPayload: SignedPayload {
    public static var payloadName: String { "transaction" }
    public var effectiveDate: Int64? { signedDate }
    public var claimedEnvironment: AppStoreEnvironment? { environment }

    public func checkClaims(_ policy: VerificationPolicy) throws(VerificationError) {
        try policy.checkBundleId(bundleId)
        try policy.checkEnvironment(environment)
    }
}

extension JWSRenewalInfoDecodedPayload: SignedPayload {
    public static var payloadName: String { "renewal info" }
    public var effectiveDate: Int64? { signedDate }
    public var claimedEnvironment: AppStoreEnvironment? { environment }

    public func checkClaims(_ policy: VerificationPolicy) throws(VerificationError) {
        try policy.checkEnvironment(environment)
    }
}

extension AppTransaction: SignedPayload {
    public static var payloadName: String { "app transaction" }
    /// Apple dates an app transaction by when its receipt was created.
    public var effectiveDate: Int64? { receiptCreationDate }
    public var claimedEnvironment: AppStoreEnvironment? { receiptType }

    public func checkClaims(_ policy: VerificationPolicy) throws(VerificationError) {
        try policy.checkApp(bundleId: bundleId, appAppleId: appAppleId, environment: receiptType)
        try policy.checkEnvironment(receiptType)
    }
}
