import Crypto
import Foundation
import Testing

@testable import AppStore

/// Apple's own test vectors for its App Store Server Library (`Resources/AppleVectors`, see
/// `SOURCES` there), each with the outcome Apple's tests state.
///
/// Where Apple's four libraries disagree, the row follows Python and Java: a missing `x5c` and a
/// malformed JWS are `verificationFailure` (Swift says INVALID_JWT_FORMAT, Node
/// INVALID_CERTIFICATE for the first), an expired chain is `verificationFailure` (as Python and
/// Swift; Java says INVALID_CHAIN, Node INVALID_CERTIFICATE). Python's statuses are the ones the
/// notification URL's 401 and `revenuedot verify` already report, and Python and Java agree on
/// all but the last.
@Suite("Apple's test vectors")
struct AppleVectorsTests {
    /// Apple's chain tests date their check here (1 November 2025).
    static let effectiveDate: Int64 = 1_761_962_975
    /// The expired-chain test's date (12 April 2042).
    static let expiredDate: Int64 = 2_280_946_846
    /// Apple's tests build every verifier with this app Apple ID unless they say otherwise.
    static let appAppleId: Int64 = 1234
    static let xcodeBundleId = "com.example.naturelab.backyardbirds.example"

    /// What a vector is: one of Apple's files, a literal, or one of Apple's chain tests made into
    /// a JWS dated at the test's date (signed by a key of our own, since Apple's leaf key is not
    /// published: a chain that passes fails at the signature, after every chain check).
    enum Input: Sendable {
        case file(String)
        case text(String)
        case chain([String], signedDate: Int64)
    }

    /// What Apple's test expects.
    enum Outcome: Sendable, Equatable {
        case valid
        /// Rejected with this status, the detail containing `detail`.
        case rejected(VerificationError.Status, detail: String)
    }

    struct Vector: Sendable, CustomTestStringConvertible {
        /// The Apple test this row comes from.
        var test: String
        var input: Input
        var kind: SignedDataVerifier.PayloadKind
        var environment: AppStoreEnvironment
        var bundleId = "com.example"
        var appAppleId: Int64 = AppleVectorsTests.appAppleId
        /// Root certificate files (under `Resources/AppleVectors`).
        var roots = ["certs/testCA.der"]
        var outcome: Outcome

        var testDescription: String { test }
    }

    static let chainSignature = "does not match the leaf certificate's key"

    static let vectors: [Vector] = [
        // tests/test_payload_verification.py (and the Swift library's SignedDataVerifierTests)
        Vector(
            test: "test_app_store_server_notification_decoding", input: .file("mock_signed_data/testNotification"),
            kind: .notification, environment: .sandbox, outcome: .valid),
        Vector(
            test: "test_app_store_server_notification_decoding_production",
            input: .file("mock_signed_data/testNotification"), kind: .notification, environment: .production,
            outcome: .rejected(.invalidEnvironment, detail: "environment Sandbox")),
        Vector(
            test: "test_missing_x5c_header", input: .file("mock_signed_data/missingX5CHeaderClaim"), kind: .notification,
            environment: .sandbox, outcome: .rejected(.verificationFailure, detail: "no x5c")),
        Vector(
            test: "test_wrong_bundle_id_for_server_notification", input: .file("mock_signed_data/wrongBundleId"),
            kind: .notification, environment: .sandbox, bundleId: "com.examplex",
            outcome: .rejected(.invalidAppIdentifier, detail: "bundleId")),
        Vector(
            test: "test_wrong_app_apple_id_for_server_notification", input: .file("mock_signed_data/testNotification"),
            kind: .notification, environment: .production, appAppleId: 1235,
            outcome: .rejected(.invalidAppIdentifier, detail: "appAppleId 1234, expected 1235")),
        Vector(
            test: "test_renewal_info_decoding", input: .file("mock_signed_data/renewalInfo"), kind: .renewalInfo,
            environment: .sandbox, outcome: .valid),
        Vector(
            test: "test_transaction_info_decoding", input: .file("mock_signed_data/transactionInfo"), kind: .transaction,
            environment: .sandbox, outcome: .valid),
        Vector(
            test: "test_malformed_jwt_with_too_many_parts", input: .text("a.b.c.d"), kind: .notification,
            environment: .sandbox, outcome: .rejected(.verificationFailure, detail: "")),
        Vector(
            test: "test_malformed_jwt_with_malformed_data", input: .text("a.b.c"), kind: .notification,
            environment: .sandbox, outcome: .rejected(.verificationFailure, detail: "")),
        Vector(
            test: "Swift testWrongBundleIdForTransaction", input: .file("mock_signed_data/transactionInfo"),
            kind: .transaction, environment: .sandbox, bundleId: "com.example.x",
            outcome: .rejected(.invalidAppIdentifier, detail: "bundleId \"com.example\"")),
        Vector(
            test: "Swift testWrongAppAppleIdForNotification (a notification verified as a transaction)",
            input: .file("mock_signed_data/testNotification"), kind: .transaction, environment: .sandbox,
            appAppleId: 1235, outcome: .rejected(.invalidAppIdentifier, detail: "bundleId missing")),

        // tests/test_xcode_signed_data.py
        Vector(
            test: "test_xcode_signed_app_transaction", input: .file("xcode/xcode-signed-app-transaction"),
            kind: .appTransaction, environment: .xcode, bundleId: xcodeBundleId, outcome: .valid),
        Vector(
            test: "test_xcode_signed_transaction", input: .file("xcode/xcode-signed-transaction"), kind: .transaction,
            environment: .xcode, bundleId: xcodeBundleId, outcome: .valid),
        Vector(
            test: "test_xcode_signed_renewal_info", input: .file("xcode/xcode-signed-renewal-info"), kind: .renewalInfo,
            environment: .xcode, bundleId: xcodeBundleId, outcome: .valid),
        Vector(
            test: "test_xcode_signed_app_transaction_with_production_environment",
            input: .file("xcode/xcode-signed-app-transaction"), kind: .appTransaction, environment: .production,
            bundleId: xcodeBundleId, outcome: .rejected(.invalidChainLength, detail: "x5c holds 1 certificate(s)")),

        // tests/test_x509_verifiction.py, each chain as the x5c of a JWS dated at the test's date
        Vector(
            test: "test_valid_chain_without_ocsp",
            input: .chain(["leaf", "intermediate-ca", "root-ca"], signedDate: effectiveDate), kind: .renewalInfo,
            environment: .sandbox, roots: ["chains/root-ca.b64"],
            outcome: .rejected(.verificationFailure, detail: chainSignature)),
        Vector(
            test: "test_valid_chain_invalid_intermediate_OID_without_OCSP",
            input: .chain(
                ["leaf-for-intermediate-ca-invalid-oid", "intermediate-ca-invalid-oid", "root-ca"],
                signedDate: effectiveDate), kind: .renewalInfo, environment: .sandbox, roots: ["chains/root-ca.b64"],
            outcome: .rejected(.verificationFailure, detail: "intermediate certificate lacks Apple's marker OID")),
        Vector(
            test: "test_valid_chain_invalid_leaf_OID_without_OCSP",
            input: .chain(["leaf-invalid-oid", "intermediate-ca", "root-ca"], signedDate: effectiveDate),
            kind: .renewalInfo, environment: .sandbox, roots: ["chains/root-ca.b64"],
            outcome: .rejected(.verificationFailure, detail: "leaf certificate lacks Apple's marker OID")),
        Vector(
            test: "test_invalid_chain_length",
            input: .chain(["intermediate-ca", "root-ca"], signedDate: effectiveDate), kind: .renewalInfo,
            environment: .sandbox, roots: ["chains/root-ca.b64"],
            outcome: .rejected(.invalidChainLength, detail: "x5c holds 2 certificate(s)")),
        Vector(
            test: "test_invalid_base64_in_certificate_list",
            input: .chain(["=abc", "intermediate-ca", "root-ca"], signedDate: effectiveDate), kind: .renewalInfo,
            environment: .sandbox, roots: ["chains/root-ca.b64"],
            outcome: .rejected(.invalidCertificate, detail: "x5c[0]")),
        Vector(
            test: "test_invalid_data_in_certificate_list",
            input: .chain(["=YWJj", "intermediate-ca", "root-ca"], signedDate: effectiveDate), kind: .renewalInfo,
            environment: .sandbox, roots: ["chains/root-ca.b64"],
            outcome: .rejected(.invalidCertificate, detail: "x5c[0] is not a DER certificate")),
        Vector(
            test: "test_chain_different_than_root_certificate",
            input: .chain(["leaf", "intermediate-ca", "root-ca"], signedDate: effectiveDate), kind: .renewalInfo,
            environment: .sandbox, roots: ["chains/real-apple-root.b64"],
            outcome: .rejected(.verificationFailure, detail: "certificate chain")),
        Vector(
            test: "test_valid_expired_chain",
            input: .chain(["leaf", "intermediate-ca", "root-ca"], signedDate: expiredDate), kind: .renewalInfo,
            environment: .sandbox, roots: ["chains/root-ca.b64"],
            outcome: .rejected(.verificationFailure, detail: "certificate has expired")),
        Vector(
            test: "test_apple_chain_is_valid_with_ocsp_and_strict (offline: no OCSP)",
            input: .chain(["real-apple-signing", "real-apple-intermediate", "real-apple-root"], signedDate: effectiveDate),
            kind: .renewalInfo, environment: .sandbox, roots: ["chains/real-apple-root.b64"],
            outcome: .rejected(.verificationFailure, detail: chainSignature)),
    ]

    // MARK: - Loading

    static func resource(_ path: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Resources/AppleVectors/\(path)", withExtension: nil))
        return try Data(contentsOf: url)
    }

    /// A certificate of Apple's chain tests, as the base64 DER Apple's test holds; a name starting
    /// with `=` is a literal entry instead.
    static func x5cEntry(_ name: String) throws -> String {
        if name.hasPrefix("=") { return String(name.dropFirst()) }
        return String(decoding: try resource("chains/\(name).b64"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func certificates(_ path: String) throws -> [Certificate] {
        let data = try resource(path)
        if path.hasSuffix(".b64") {
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return [try Certificate(der: try #require(Data(base64Encoded: text)))]
        }
        return try Certificate.parse(pemOrDER: data)
    }

    static func text(of input: Input) throws -> String {
        switch input {
        case .file(let path): return String(decoding: try resource(path), as: UTF8.self)
        case .text(let text): return text
        case .chain(let names, let signedDate):
            let signer = try JWSSigner(key: try ECPrivateKey(generating: .p256), x5c: try names.map(x5cEntry))
            return try signer.sign(payload: Data(#"{"environment":"Sandbox","signedDate":\#(signedDate * 1000)}"#.utf8))
        }
    }

    /// A verifier as Apple's tests build one: the given roots, one environment, a bundle ID and
    /// an app Apple ID, no chain cache.
    static func verifier(for vector: Vector) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: try vector.roots.flatMap(certificates),
            policy: VerificationPolicy(
                bundleId: vector.bundleId, appAppleId: vector.appAppleId, environments: [vector.environment]),
            chainCache: nil)
    }

    static let now = Date(timeIntervalSince1970: TimeInterval(effectiveDate))

    static func verify(_ vector: Vector) throws -> VerifiedSignedData {
        try verifier(for: vector).verifyAny(try text(of: vector.input), as: vector.kind, now: now)
    }

    // MARK: - The table

    @Test(arguments: vectors)
    func eachVectorHasTheOutcomeAppleStates(_ vector: Vector) throws {
        switch vector.outcome {
        case .valid:
            _ = try Self.verify(vector)
        case .rejected(let status, let detail):
            do {
                _ = try Self.verify(vector)
                Issue.record("\(vector.test) verified; Apple expects \(status)")
            } catch let error as VerificationError {
                #expect(error.status == status, "\(vector.test): \(error)")
                #expect(detail.isEmpty || error.detail.contains(detail), "\(vector.test): \(error)")
            }
        }
    }

    // MARK: - What Apple's tests assert of the payloads

    @Test func testNotificationIsATestNotification() throws {
        guard case .notification(let verified) = try Self.verify(Self.vectors[0]) else {
            Issue.record("not a notification")
            return
        }
        #expect(verified.notification.payload.notificationType == .test)
        #expect(verified.notification.isSignedByAppStore)
    }

    @Test func transactionAndRenewalInfoAreSandbox() throws {
        let transaction = try #require(Self.vectors.first { $0.test == "test_transaction_info_decoding" })
        guard case .transaction(let verified) = try Self.verify(transaction) else {
            Issue.record("not a transaction")
            return
        }
        #expect(verified.payload.environment == .sandbox)
        let renewal = try #require(Self.vectors.first { $0.test == "test_renewal_info_decoding" })
        guard case .renewalInfo(let info) = try Self.verify(renewal) else {
            Issue.record("not renewal info")
            return
        }
        #expect(info.payload.environment == .sandbox)
    }

    /// test_xcode_signed_app_transaction: Xcode's fractional `receiptCreationDate`, and
    /// `Date.distantPast` as `originalPurchaseDate`.
    @Test func xcodeAppTransaction() throws {
        let vector = try #require(Self.vectors.first { $0.test == "test_xcode_signed_app_transaction" })
        guard case .appTransaction(let verified) = try Self.verify(vector) else {
            Issue.record("not an app transaction")
            return
        }
        let app = verified.payload
        #expect(!verified.isSignedByAppStore)
        #expect(app.appAppleId == nil)
        #expect(app.bundleId == Self.xcodeBundleId)
        #expect(app.applicationVersion == "1")
        #expect(app.versionExternalIdentifier == nil)
        #expect(app.originalPurchaseDate == -62_135_769_600_000)
        #expect(app.originalApplicationVersion == "1")
        #expect(app.deviceVerification == "cYUsXc53EbYc0pOeXG5d6/31LGHeVGf84sqSN0OrJi5u/j2H89WWKgS8N0hMsMlf")
        #expect(app.deviceVerificationNonce == "48c8b92d-ce0d-4229-bedf-e61b4f9cfc92")
        #expect(app.preorderDate == nil)
        #expect(app.receiptType == .xcode)
        #expect(app.receiptType?.rawValue == "Xcode")
        #expect(app.receiptCreationDate == 1_697_680_122_257)
    }

    /// test_xcode_signed_transaction: every date truncated to whole milliseconds.
    @Test func xcodeTransaction() throws {
        let vector = try #require(Self.vectors.first { $0.test == "test_xcode_signed_transaction" })
        guard case .transaction(let verified) = try Self.verify(vector) else {
            Issue.record("not a transaction")
            return
        }
        let transaction = verified.payload
        #expect(transaction.originalTransactionId == "0")
        #expect(transaction.transactionId == "0")
        #expect(transaction.webOrderLineItemId == "0")
        #expect(transaction.bundleId == Self.xcodeBundleId)
        #expect(transaction.productId == "pass.premium")
        #expect(transaction.subscriptionGroupIdentifier == "6F3A93AB")
        #expect(transaction.purchaseDate == 1_697_679_936_049)
        #expect(transaction.originalPurchaseDate == 1_697_679_936_049)
        #expect(transaction.expiresDate == 1_700_358_336_049)
        #expect(transaction.quantity == 1)
        #expect(transaction.type == .autoRenewable)
        #expect(transaction.appAccountToken == nil)
        #expect(transaction.inAppOwnershipType == .purchased)
        #expect(transaction.signedDate == 1_697_679_936_056)
        #expect(transaction.revocationReason == nil)
        #expect(transaction.revocationDate == nil)
        #expect(transaction.isUpgraded == false)
        #expect(transaction.offerType == .introductory)
        #expect(transaction.offerIdentifier == nil)
        #expect(transaction.environment == .xcode)
        #expect(transaction.storefront == "USA")
        #expect(transaction.storefrontId == "143441")
        #expect(transaction.transactionReason == .purchase)
    }

    /// test_xcode_signed_renewal_info.
    @Test func xcodeRenewalInfo() throws {
        let vector = try #require(Self.vectors.first { $0.test == "test_xcode_signed_renewal_info" })
        guard case .renewalInfo(let verified) = try Self.verify(vector) else {
            Issue.record("not renewal info")
            return
        }
        let info = verified.payload
        #expect(info.expirationIntent == nil)
        #expect(info.originalTransactionId == "0")
        #expect(info.autoRenewProductId == "pass.premium")
        #expect(info.productId == "pass.premium")
        #expect(info.autoRenewStatus == .on)
        #expect(info.isInBillingRetryPeriod == nil)
        #expect(info.priceIncreaseStatus == nil)
        #expect(info.gracePeriodExpiresDate == nil)
        #expect(info.offerType == nil)
        #expect(info.offerIdentifier == nil)
        #expect(info.signedDate == 1_697_679_936_711)
        #expect(info.environment == .xcode)
        #expect(info.recentSubscriptionStartDate == 1_697_679_936_049)
        #expect(info.renewalDate == 1_700_358_336_049)
    }

    /// The chain tests Apple runs on the chain alone, through the trust store: the chains that
    /// pass as JWS (failing only at the signature) pass here, with strict checks but for the
    /// profile-only findings (`TrustStore.profileOnlyErrors`).
    @Test(arguments: [
        (["leaf", "intermediate-ca"], "chains/root-ca.b64", effectiveDate, true),
        (["leaf", "intermediate-ca"], "chains/root-ca.b64", expiredDate, false),
        (["leaf", "intermediate-ca"], "chains/real-apple-root.b64", effectiveDate, false),
        (["real-apple-signing", "real-apple-intermediate"], "chains/real-apple-root.b64", effectiveDate, true),
    ])
    func chainsAloneAsAppleJudgesThem(chain: [String], root: String, at time: Int64, trusted: Bool) throws {
        let certificates = try chain.map { try Certificate(der: try #require(Data(base64Encoded: try Self.x5cEntry($0)))) }
        let store = try TrustStore(roots: try Self.certificates(root))
        let outcome = store.verify(leaf: certificates[0], intermediate: certificates[1], at: time)
        if case .trusted = outcome { #expect(trusted) } else { #expect(!trusted, "\(outcome)") }
    }

    /// test_malformed_root_cert: Apple's Python library finds a root that is not a certificate
    /// when verifying (INVALID_CERTIFICATE); RevenueDot, like Apple's Swift, Java and Node
    /// libraries, when the verifier is configured, before any payload.
    @Test func aMalformedRootIsRefusedAtConfiguration() {
        #expect(throws: (any Error).self) { _ = try Certificate.parse(pemOrDER: Data("abc".utf8)) }
        #expect(throws: ConfigurationError.self) {
            _ = try SignedDataVerifier(rootCertificates: [], policy: VerificationPolicy(environments: [.sandbox]))
        }
    }
}
