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
}
