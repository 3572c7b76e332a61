import Foundation

/// A payload that passed verification, with the exact JSON it was decoded from.
public struct VerifiedPayload<Payload: SignedPayload>: Sendable {
    /// The decoded payload.
    public var payload: Payload
    /// The payload's JSON exactly as signed, unknown fields included.
    public var json: Data
    /// False for `Xcode`/`LocalTesting` data accepted without a signature by configuration.
    public var isSignedByAppStore: Bool

    public init(payload: Payload, json: Data, isSignedByAppStore: Bool) {
        self.payload = payload
        self.json = json
        self.isSignedByAppStore = isSignedByAppStore
    }
}

/// A verified notification with its nested signed objects verified the same way.
public struct VerifiedNotification: Sendable {
    public var notification: VerifiedPayload<ResponseBodyV2DecodedPayload>
    /// `data.signedTransactionInfo`, verified.
    public var transaction: VerifiedPayload<JWSTransactionDecodedPayload>?
    /// `data.signedRenewalInfo`, verified.
    public var renewalInfo: VerifiedPayload<JWSRenewalInfoDecodedPayload>?
    /// `appData.signedAppTransactionInfo`, verified.
    public var appTransaction: VerifiedPayload<AppTransaction>?

    public init(
        notification: VerifiedPayload<ResponseBodyV2DecodedPayload>,
        transaction: VerifiedPayload<JWSTransactionDecodedPayload>? = nil,
        renewalInfo: VerifiedPayload<JWSRenewalInfoDecodedPayload>? = nil,
        appTransaction: VerifiedPayload<AppTransaction>? = nil
    ) {
        self.notification = notification
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.appTransaction = appTransaction
    }
}
