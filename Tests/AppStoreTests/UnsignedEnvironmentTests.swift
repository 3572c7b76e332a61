import AppStore
import AppStoreFixtures
import Crypto
import Foundation
import Testing

/// Xcode and LocalTesting data carries no App Store signature: accepted only when configured.
@Suite("Xcode and LocalTesting data")
struct UnsignedEnvironmentTests {
    let now = Fixtures.now

    /// A transaction as StoreKit testing in Xcode makes it: signed by a local key, no Apple chain.
    func xcodeTransaction(_ environment: String) throws -> String {
        let key = try ECPrivateKey(generating: .p256)
        return try JWSSigner(key: key, keyId: "Apple_Xcode_Key").sign(
            payload: JSONSerialization.data(withJSONObject: Fixtures.transactionJSON(environment: environment)))
    }

    @Test(arguments: ["Xcode", "LocalTesting"])
    func unsignedDataIsRejectedByDefault(environment: String) throws {
        let signed = try xcodeTransaction(environment)
        expectRejected(.verificationFailure) { _ = try Fixtures.verifier().verifyTransaction(signed, now: now) }
        expectRejected(.verificationFailure) {
            _ = try SignedDataVerifier(rootCertificates: [Fixtures.chain.root], policy: .signatureOnly).verifyTransaction(
                signed, now: now)
        }
    }

    @Test(arguments: [("Xcode", AppStoreEnvironment.xcode), ("LocalTesting", .localTesting)])
    func unsignedDataIsAcceptedWhenTheEnvironmentIsEnabled(environment: String, value: AppStoreEnvironment) throws {
        let verifier = try Fixtures.verifier(environments: [.sandbox, value])
        let verified = try verifier.verifyTransaction(try xcodeTransaction(environment), now: now)
        #expect(verified.payload.environment == value)
        #expect(!verified.isSignedByAppStore)
        // Enabling Xcode does not let unsigned data claim to be Sandbox.
        let forged = try xcodeTransaction("Sandbox")
        expectRejected(.verificationFailure) { _ = try verifier.verifyTransaction(forged, now: now) }
        // And the app is still checked.
        let other = try JWSSigner(key: try ECPrivateKey(generating: .p256)).sign(
            payload: JSONSerialization.data(
                withJSONObject: Fixtures.transactionJSON(environment: environment, bundleId: "com.other")))
        expectRejected(.invalidAppIdentifier) { _ = try verifier.verifyTransaction(other, now: now) }
    }

    @Test func enablingXcodeDoesNotAcceptLocalTesting() throws {
        let verifier = try Fixtures.verifier(environments: [.xcode])
        expectRejected(.verificationFailure) {
            _ = try verifier.verifyTransaction(try xcodeTransaction("LocalTesting"), now: now)
        }
    }

    /// An unsigned notification carries only unsigned data of its own environment: a genuine
    /// signed Sandbox transaction wrapped in an unsigned Xcode notification (any type its maker
    /// likes) is refused, as is unsigned data of another environment.
    @Test func anUnsignedNotificationCarriesOnlyItsOwnUnsignedData() throws {
        let verifier = try Fixtures.verifier(environments: [.sandbox, .xcode])
        let local = try ECPrivateKey(generating: .p256)
        func unsigned(_ json: [String: Any]) throws -> String {
            try JWSSigner(key: local, keyId: "Apple_Xcode_Key").sign(payload: JSONSerialization.data(withJSONObject: json))
        }
        func notification(transaction: String, renewal: String) throws -> String {
            var json = try Fixtures.notificationJSON(type: "REFUND", environment: "Xcode")
            var data = try #require(json["data"] as? [String: Any])
            data["signedTransactionInfo"] = transaction
            data["signedRenewalInfo"] = renewal
            json["data"] = data
            return try unsigned(json)
        }
        let xcodeRenewal = try unsigned(Fixtures.renewalJSON(environment: "Xcode"))
        // Its own: accepted, unsigned throughout.
        let own = try verifier.verifyNotification(
            try notification(transaction: try xcodeTransaction("Xcode"), renewal: xcodeRenewal), now: now)
        #expect(own.transaction?.isSignedByAppStore == false)
        #expect(own.transaction?.payload.environment == .xcode)
        // A signed Sandbox transaction inside: refused.
        let signed = try Fixtures.sign(Fixtures.transactionJSON(environment: "Sandbox"))
        _ = try verifier.verifyTransaction(signed, now: now)
        expectRejected(.verificationFailure) {
            _ = try verifier.verifyNotification(try notification(transaction: signed, renewal: xcodeRenewal), now: now)
        }
        // Unsigned data of another enabled unsigned environment: refused too.
        let both = try Fixtures.verifier(environments: [.sandbox, .xcode, .localTesting])
        expectRejected(.verificationFailure) {
            _ = try both.verifyNotification(
                try notification(transaction: try xcodeTransaction("LocalTesting"), renewal: xcodeRenewal), now: now)
        }
    }
}
