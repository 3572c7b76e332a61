import AppStore
import Crypto
import Foundation

/// One test chain per fuzzing process, and payloads signed with it, at a fixed time.
public enum FuzzChain {
    /// 2026-11-01T00:00:00Z: the chain is made around it and every verification happens at it.
    public static let now = Date(timeIntervalSince1970: 1_793_491_200)
    public static let nowMs: Int64 = 1_793_491_200_000
    public static let bundleId = "com.example.app"
    public static let appAppleId: Int64 = 1_234_567_890

    public static let chain: TestChain = try! TestChain(now: now)

    /// A verifier trusting `roots` (the chain's root unless given), checking the app and accepting
    /// Sandbox, Production, and unsigned Xcode data.
    public static func verifier(roots: [Certificate] = [chain.root], cache: ChainCache? = nil) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: roots,
            policy: VerificationPolicy(
                bundleId: bundleId, appAppleId: appAppleId, environments: [.sandbox, .production, .xcode]),
            chainCache: cache)
    }

    /// A transaction as App Store signs one, signed at `now`.
    public static let transactionJSON = Data(
        """
        {"bundleId":"\(bundleId)","environment":"Sandbox","originalTransactionId":"2000000000000001",\
        "productId":"pro.monthly","purchaseDate":\(nowMs - 1000),"signedDate":\(nowMs),\
        "transactionId":"2000000000000002","type":"Auto-Renewable Subscription"}
        """.utf8)

    /// `payload` signed by the chain's leaf key with `x5c` in the header (the chain's unless given).
    public static func sign(_ payload: Data, x5c: [String] = chain.x5c) -> String {
        try! JWSSigner(key: chain.leafKey, x5c: x5c).sign(payload: payload)
    }

    /// `payload` signed under the header bytes given as they are, for headers no signer would write.
    public static func sign(_ payload: Data, header: Data) -> String {
        let input = Base64.encode(header, alphabet: .url) + "." + Base64.encode(payload, alphabet: .url)
        let signature = try! chain.leafKey.signRaw(Array(input.utf8))
        return input + "." + Base64.encode(signature, alphabet: .url)
    }
}
