import Crypto
import Foundation
import JSON
import Threads

/// Decides whether App Store signed data is really from Apple, with Apple's semantics.
///
/// The checks of `apple/app-store-server-library-python` `SignedDataVerifier` (offline), with
/// its statuses: compact JWS; `alg` exactly ES256; `x5c` of exactly three certificates; leaf
/// and intermediate base64 DER; leaf → intermediate → a configured root verified by OpenSSL
/// with strict X.509 checks at the payload's `signedDate` (`x5c[2]` is never trusted); Apple's
/// marker OIDs on leaf and intermediate; the ES256 signature with the leaf key; then the
/// claims of the payload type against the `VerificationPolicy`. Before any of its numbers is
/// used (`signedDate` dates the chain check), every date, amount and count in the payload must
/// be plausible (`PayloadNumber`), which Apple's libraries do not check.
///
/// With a chain cache, a chain that passes every check but the dates at some time, and the
/// signature, are checked before the payload is decoded, and the dates after; Apple's library
/// decodes the payload first. Every failure after the header has the same status
/// (`verificationFailure`), so the order changes which reason a payload failing several checks
/// is refused with, never whether or with which status.
/// https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2
public struct SignedDataVerifier: Sendable {
    /// Marks a certificate App Store uses to sign receipts and transactions.
    public static let leafMarkerOID = "1.2.840.113635.100.6.11.1"
    /// Marks Apple's WWDR intermediate certificate authority.
    public static let intermediateMarkerOID = "1.2.840.113635.100.6.2.1"

    public let policy: VerificationPolicy
    /// Whether signed payloads must hold plausible numbers (`PayloadNumber`), as they must to be
    /// applied. A verifier that keeps what Apple signed for later (a held notification) skips
    /// them: a number out of range is no reason to lose what Apple's libraries accept. Unsigned
    /// data is always checked.
    public let checksPlausibility: Bool
    /// Shared by copies of this verifier; nil verifies every chain in full.
    public let chainCache: ChainCache?
    let trustStore: TrustStore
    /// SHA-256 over the roots' DER, naming this trust store in the shared chain cache.
    let anchors: String

    /// A verifier trusting exactly `rootCertificates`.
    ///
    /// Production with a bundle ID check needs an app Apple ID, as Apple's libraries require.
    public init(
        rootCertificates: [Certificate], policy: VerificationPolicy, chainCache: ChainCache? = ChainCache(),
        checksPlausibility: Bool = true
    ) throws {
        guard !rootCertificates.isEmpty else {
            throw ConfigurationError("no root certificates: a verifier with no trust anchor accepts nothing")
        }
        if policy.bundleId != nil, policy.appAppleId == nil, policy.environments?.contains(.production) ?? false {
            throw ConfigurationError("appAppleId is required when the environment is Production")
        }
        self.trustStore = try TrustStore(roots: rootCertificates)
        self.anchors = Digest.hex(
            Digest.sha256(
                Data(rootCertificates.map { Digest.sha256($0.der) }.sorted { $0.lexicographicallyPrecedes($1) }.joined())))
        self.policy = policy
        self.chainCache = chainCache
        self.checksPlausibility = checksPlausibility
    }

    /// The roots this verifier trusts.
    public var rootCertificates: [Certificate] { trustStore.roots }

    // MARK: - Typed entry points

    /// Verifies a notification's `signedPayload` and the signed objects nested in it.
    public func verifyNotification(_ signedPayload: String, now: Date = Date()) throws(VerificationError) -> VerifiedNotification
    {
        // The nested objects normally carry the outer header byte for byte: check it once.
        var memo: CheckedHeader?
        let outer: VerifiedPayload<ResponseBodyV2DecodedPayload> = try verify(signedPayload, now: now, memo: &memo)
        var result = VerifiedNotification(notification: outer)
        if let data = outer.payload.data {
            if let signed = data.signedTransactionInfo {
                result.transaction = try nested("data.signedTransactionInfo") { () throws(VerificationError) in
                    try verify(signed, now: now, memo: &memo)
                }
            }
            if let signed = data.signedRenewalInfo {
                result.renewalInfo = try nested("data.signedRenewalInfo") { () throws(VerificationError) in
                    try verify(signed, now: now, memo: &memo)
                }
            }
        }
        if let signed = outer.payload.appData?.signedAppTransactionInfo {
            result.appTransaction = try nested("appData.signedAppTransactionInfo") { () throws(VerificationError) in
                try verify(signed, now: now, memo: &memo)
            }
        }
        try checkNestedEnvironments(of: result)
        return result
    }

    /// What ties a notification's nested objects to the notification around it: its environment.
    ///
    /// An unsigned notification (Xcode, LocalTesting) carries only unsigned data of its own
    /// environment: without this, anyone could wrap a genuine signed Sandbox transaction in an
    /// unsigned notification of their choosing (a refund, say) and have it applied as Sandbox
    /// data. A signed notification's nested objects claim its environment: Apple's libraries
    /// verify them with the verifier of the notification's environment, which refuses any other
    /// (`invalidEnvironment`); checked where this policy names environments, as Apple's verifiers
    /// do, while a signature-only policy keeps what Apple signed.
    private func checkNestedEnvironments(of result: VerifiedNotification) throws(VerificationError) {
        let outer = result.notification
        let environment = outer.payload.claimedEnvironment
        guard !outer.isSignedByAppStore || policy.environments != nil else { return }
        let nested: [(location: String, signed: Bool, environment: AppStoreEnvironment?)?] = [
            result.transaction.map { ("data.signedTransactionInfo", $0.isSignedByAppStore, $0.payload.claimedEnvironment) },
            result.renewalInfo.map { ("data.signedRenewalInfo", $0.isSignedByAppStore, $0.payload.claimedEnvironment) },
            result.appTransaction.map {
                ("appData.signedAppTransactionInfo", $0.isSignedByAppStore, $0.payload.claimedEnvironment)
            },
        ]
        for case let object? in nested {
            if !outer.isSignedByAppStore {
                guard !object.signed, object.environment == environment else {
                    throw VerificationError(
                        .verificationFailure,
                        "\(object.location): an unsigned notification may carry only unsigned data of its own environment (\(environment?.rawValue ?? "none"))"
                    )
                }
            } else if object.environment != environment {
                throw VerificationError(
                    .invalidEnvironment,
                    "\(object.location): environment \(object.environment?.rawValue ?? "missing") inside a "
                        + "\(environment?.rawValue ?? "environment-less") notification")
            }
        }
    }

    /// Verifies a `signedTransactionInfo` or a StoreKit 2 `jwsRepresentation`.
    public func verifyTransaction(_ signed: String, now: Date = Date()) throws(VerificationError) -> VerifiedPayload<
        JWSTransactionDecodedPayload
    > {
        try verify(signed, now: now)
    }

    /// Verifies a `signedRenewalInfo`.
    public func verifyRenewalInfo(_ signed: String, now: Date = Date()) throws(VerificationError) -> VerifiedPayload<
        JWSRenewalInfoDecodedPayload
    > {
        try verify(signed, now: now)
    }

    /// Verifies a signed AppTransaction.
    public func verifyAppTransaction(_ signed: String, now: Date = Date()) throws(VerificationError) -> VerifiedPayload<
        AppTransaction
    > {
        try verify(signed, now: now)
    }

    private func nested<P>(_ location: String, _ body: () throws(VerificationError) -> P) throws(VerificationError) -> P {
        do { return try body() } catch { throw error.at(location) }
    }

    // MARK: - The algorithm

    /// Verifies one compact JWS whose payload is a `P`.
    public func verify<P: SignedPayload>(_ text: String, as type: P.Type = P.self, now: Date = Date()) throws(VerificationError)
        -> VerifiedPayload<P>
    {
        var memo: CheckedHeader?
        return try verify(text, now: now, memo: &memo)
    }

    /// A header segment that passed the header checks, with `x5c[0]` and `x5c[1]` parsed.
    struct CheckedHeader {
        var segment: [UInt8]
        var leaf: Certificate
        var intermediate: Certificate

        /// The first moment both leaf and intermediate are valid, if they ever are together: where
        /// a chain refused only for its dates is checked again.
        var inside: Int64 { max(leaf.notBefore, intermediate.notBefore) }

        /// Whether `other` is byte-identical to this header's segment.
        func matches(_ other: [UInt8]) -> Bool {
            segment.count == other.count && !segment.isEmpty
                && segment.withUnsafeBytes { mine in
                    other.withUnsafeBytes { theirs in memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0 }
                }
        }
    }

    private func verify<P: SignedPayload>(_ text: String, now: Date, memo: inout CheckedHeader?) throws(VerificationError)
        -> VerifiedPayload<P>
    {
        let jws = try CompactJWS(text)

        // Xcode and LocalTesting data is not signed by the App Store; accepted only by choice.
        if let environments = policy.environments, environments.contains(where: { !$0.isSignedByAppStore }) {
            let payload: P = try decodePayload(jws.payload)
            if policy.acceptsUnsigned(payload.claimedEnvironment) {
                try PayloadNumber.check(payload.numbers, unsigned: true)
                try payload.checkClaims(policy)
                return VerifiedPayload(
                    payload: payload, json: jws.payload, isSignedByAppStore: false)
            }
        }

        let checked = try checkedHeader(of: jws, memo: &memo)
        // A chain good at some time, and the signature, before the payload is read: a forged
        // payload costs a signature check rather than a parse of up to a whole body.
        if let chainCache, let leafKey = try anchoredLeafKey(checked, key: chainKey(checked), cache: chainCache) {
            try checkSignature(of: jws, with: leafKey)
            let payload: P = try decodePayload(jws.payload)
            if checksPlausibility { try PayloadNumber.check(payload.numbers) }
            try checkWindow(checked, at: Self.seconds(payload.effectiveDate, now: now), cache: chainCache)
            try payload.checkClaims(policy)
            chainCache.rememberSigner(checked.segment)
            return VerifiedPayload(payload: payload, json: jws.payload, isSignedByAppStore: true)
        }
        // Apple's order: the payload's date dates the chain check, then the signature.
        let payload: P = try decodePayload(jws.payload)
        if checksPlausibility { try PayloadNumber.check(payload.numbers) }
        let leafKey = try verifiedLeafKey(checked, at: Self.seconds(payload.effectiveDate, now: now))
        try checkSignature(of: jws, with: leafKey)
        try payload.checkClaims(policy)
        chainCache?.rememberSigner(checked.segment)
        return VerifiedPayload(payload: payload, json: jws.payload, isSignedByAppStore: true)
    }

    /// Whether `signed`'s JWS header is byte for byte that of a payload that verified in full
    /// before (`ChainCache`), read without decoding anything: verifying it costs a signature
    /// check, not a certificate chain's. False without a chain cache.
    public func knowsSigner(of signed: String) -> Bool {
        guard let chainCache else { return false }
        var signed = signed
        return signed.withUTF8 { bytes in
            let end = bytes.firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
            return end > 0 && chainCache.knowsSigner(UnsafeRawBufferPointer(start: bytes.baseAddress, count: end))
        }
    }

    private func checkSignature(of jws: CompactJWS, with leafKey: ECPublicKey) throws(VerificationError) {
        guard jws.withSigningInput({ leafKey.verify(rawSignature: jws.signature, message: $0) }) else {
            throw VerificationError(.verificationFailure, "the ES256 signature does not match the leaf certificate's key")
        }
    }

    /// The longest header segment read. App Store's (`alg` and three certificates in `x5c`)
    /// is about 5 KB; a longer one is refused before it is decoded, so a stranger's header of
    /// a megabyte costs no parse.
    static let maxHeaderSegmentBytes = 32_768

    /// The header checks, skipped for a header byte-identical to one already checked.
    private func checkedHeader(of jws: CompactJWS, memo: inout CheckedHeader?) throws(VerificationError) -> CheckedHeader {
        if let known = memo, known.matches(jws.headerSegment) { return known }
        if let known = chainCache?.checkedHeader(jws.headerSegment) {
            memo = known
            return known
        }
        guard jws.headerSegment.count <= Self.maxHeaderSegmentBytes else {
            throw VerificationError(
                .verificationFailure,
                "the JWS header is \(jws.headerSegment.count) bytes, more than any App Store signer's "
                    + "(\(Self.maxHeaderSegmentBytes) at most)")
        }
        let (leaf, intermediate) = try certificates(in: try jws.header())
        let checked = CheckedHeader(segment: jws.headerSegment, leaf: leaf, intermediate: intermediate)
        chainCache?.rememberHeader(checked)
        memo = checked
        return checked
    }

    /// `x5c[0]` and `x5c[1]`, parsed, after the header checks.
    private func certificates(in json: Data) throws(VerificationError) -> (Certificate, Certificate) {
        let header: JWSHeader
        do {
            header = try Self.decoder.decode(JWSHeader.self, from: json)
        } catch {
            throw VerificationError(.verificationFailure, "the JWS header is not a JSON object")
        }
        // JSONDecoder keeps a name's first value, other JSON readers its last: a header that
        // names `alg` twice would be read one way here and another way elsewhere.
        do { _ = try JSONValue(parsingWithoutRepeatedNames: json) } catch let repeated as JSONValue.RepeatedName {
            throw VerificationError(.verificationFailure, "the JWS header names \(repeated.path) more than once")
        } catch {
            throw VerificationError(.verificationFailure, "the JWS header is not a JSON object")
        }
        guard header.alg == "ES256" else {
            throw VerificationError(
                .verificationFailure, "alg \(header.alg.map { "\"\($0)\"" } ?? "missing"), expected \"ES256\"")
        }
        let entries: [String?]
        switch header.x5c {
        case .missing: throw VerificationError(.verificationFailure, "the JWS header has no x5c")
        case .notAnArray: throw VerificationError(.verificationFailure, "x5c is not an array")
        case .entries(let list): entries = list
        }
        guard !entries.isEmpty else { throw VerificationError(.verificationFailure, "x5c is empty") }
        guard entries.count == 3 else {
            throw VerificationError(.invalidChainLength, "x5c holds \(entries.count) certificate(s), expected 3")
        }
        return (try Self.certificate(entries[0], at: 0), try Self.certificate(entries[1], at: 1))
    }

    /// One `x5c` entry as a certificate; anything but base64 DER is `invalidCertificate`.
    private static func certificate(_ entry: String?, at index: Int) throws(VerificationError) -> Certificate {
        guard let der = entry.flatMap({ Base64.decode($0, alphabet: .standard) }) else {
            throw VerificationError(.invalidCertificate, "x5c[\(index)] is not base64")
        }
        do {
            return try Certificate(der: der)
        } catch {
            throw VerificationError(.invalidCertificate, "x5c[\(index)] is not a DER certificate: \(error.reason)")
        }
    }

    private func decodePayload<P: SignedPayload>(_ json: Data) throws(VerificationError) -> P {
        do {
            return try Self.payloadDecoder.decode(P.self, from: json)
        } catch {
            throw VerificationError(.verificationFailure, "the payload is not a valid \(P.payloadName): \(Self.describe(error))")
        }
    }

    // MARK: - Helpers

    /// One decoder for every header: it holds no per-call state.
    static let decoder = JSONDecoder()
    /// Payloads are decoded by hand-parsed JSON: much faster than `JSONDecoder` here.
    static let payloadDecoder = JSONValueDecoder()

    /// Seconds since 1970 from Apple's milliseconds, rounded down; now when absent. Total over
    /// `Int64` and any `now`, though callers pass only plausible dates.
    static func seconds(_ milliseconds: Int64?, now: Date) -> Int64 {
        guard let milliseconds else {
            let seconds = now.timeIntervalSince1970.rounded(.down)
            return Int64(exactly: seconds) ?? (seconds < 0 ? Int64.min : Int64.max)
        }
        let quotient = milliseconds / 1000
        return milliseconds % 1000 < 0 ? quotient - 1 : quotient
    }

    static func iso8601(_ seconds: Int64) -> String {
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        return ISO8601UTC.string(fromMilliseconds: overflow ? (seconds < 0 ? .min : .max) : milliseconds)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}

/// A verifier configuration that cannot work, found before any payload is seen.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
