import Crypto
import Foundation

/// The certificate chain checks: in full through OpenSSL, or from the shared `ChainCache`.
extension SignedDataVerifier {
    /// The leaf key of a chain that passes every check at some time, before the payload is read:
    /// from the cache, or checked in full inside its certificates' window and then cached. Nil
    /// when that check fails for the dates alone and some time might suit every certificate
    /// (the root's window apart from the other two): the payload's date then decides, as in the
    /// full order.
    ///
    /// Every other check of a chain (trust, signatures, marker OIDs, the leaf key) does not
    /// depend on the time, so a chain failing one fails at every time, with the same status
    /// Apple's libraries give (`verificationFailure`) as any failure after the header.
    func anchoredLeafKey(_ header: CheckedHeader, key: ChainCache.Key, cache: ChainCache) throws(VerificationError)
        -> ECPublicKey?
    {
        if let known = cache.leafKey(key) { return known }
        do {
            let chain = try verifiedChain(header, at: header.inside)
            cache.insert(key, learned(chain, header))
            return chain.leafKey
        } catch {
            guard error.isOutsideValidity else { throw error.undatedFailure }
            // Windows that never overlap fail at every time (an attacker chooses a leaf's dates).
            guard header.inside < min(header.leaf.notAfter, header.intermediate.notAfter) else {
                throw VerificationError(
                    .verificationFailure, "certificate chain: the leaf's and the intermediate's validity never overlap")
            }
            return nil
        }
    }

    /// The chain of `header` as the cache knows it: its certificates, under this verifier's roots.
    func chainKey(_ header: CheckedHeader) -> ChainCache.Key {
        ChainCache.Key(anchors: anchors, leaf: header.leaf.der, intermediate: header.intermediate.der)
    }

    /// After `anchoredLeafKey`: the chain's window at `time`, the payload's date. A chain the
    /// cache let go of meanwhile is checked in full at that time.
    func checkWindow(_ header: CheckedHeader, at time: Int64, cache: ChainCache) throws(VerificationError) {
        switch cache.lookup(chainKey(header), at: time, counting: false) {
        case .valid: return
        case .outsideWindow(let expired): throw Self.windowFailure(expired: expired, at: time)
        case .outsideWindows: _ = try fullyVerifiedLeafKey(header, at: time)
        case .unknown: _ = try verifiedLeafKey(header, at: time)
        }
    }

    /// The leaf's public key once the chain is known good at `time`, from the cache or in full.
    ///
    /// A chain the cache holds but dated outside its window is refused from the cache, with the
    /// reason OpenSSL would give. A chain refused in full for its dates alone is checked once
    /// more inside its certificates' window and, if good there, cached: otherwise a forged
    /// payload under Apple's public chain, dated out of the window, would cost two P-384
    /// certificate checks every time instead of a lookup.
    func verifiedLeafKey(_ header: CheckedHeader, at time: Int64) throws(VerificationError) -> ECPublicKey {
        let key = chainKey(header)
        switch chainCache?.lookup(key, at: time) {
        case .valid(let leafKey)?: return leafKey
        case .outsideWindow(let expired)?: throw Self.windowFailure(expired: expired, at: time)
        case .outsideWindows?: return try fullyVerifiedLeafKey(header, at: time)
        case .unknown?, nil: break
        }
        let chain: VerifiedChain
        do {
            chain = try verifiedChain(header, at: time)
        } catch {
            if let chainCache, error.isOutsideValidity, header.inside != time,
                let good = try? verifiedChain(header, at: header.inside)
            {
                chainCache.insert(key, learned(good, header))
            }
            throw error.failure
        }
        chainCache?.insert(key, learned(chain, header))
        return chain.leafKey
    }

    /// The full check of a chain the cache holds, at a time outside its windows: nothing to learn.
    private func fullyVerifiedLeafKey(_ header: CheckedHeader, at time: Int64) throws(VerificationError) -> ECPublicKey {
        do { return try verifiedChain(header, at: time).leafKey } catch { throw error.failure }
    }

    /// A chain that passed every check at `time`, under `root`: its leaf key.
    struct VerifiedChain {
        var leafKey: ECPublicKey
        var root: Certificate
        var time: Int64
    }

    /// What the cache keeps of a chain that passed every check: its leaf key and the times it
    /// is good at. Computed only for a chain the cache learns, since under several roots it
    /// may take a full check more per root edge.
    struct LearnedChain {
        var leafKey: ECPublicKey
        /// Sorted, apart from each other.
        var windows: [Range<Int64>]
        /// Whether a full check outside `windows` refuses for one certificate's dates alone, with
        /// the reason `windowFailure` gives: one trusted root, so one window.
        var refusesOutside: Bool
    }

    func learned(_ chain: VerifiedChain, _ header: CheckedHeader) -> LearnedChain {
        LearnedChain(
            leafKey: chain.leafKey, windows: trustedWindows(header, root: chain.root, trustedAt: chain.time),
            refusesOutside: trustStore.roots.count == 1)
    }

    /// Why a chain failed its full check.
    struct ChainFailure: Error {
        var failure: VerificationError
        /// Refused by OpenSSL for a certificate's dates; other checks may not have run.
        var isOutsideValidity: Bool
        /// OpenSSL's reason, when it refused the chain.
        var trustReason: String? = nil

        /// The failure of a check that holds at every time: OpenSSL's reason not dated by the
        /// moment it was checked at.
        var undatedFailure: VerificationError {
            trustReason.map { VerificationError(.verificationFailure, "certificate chain: \($0)") } ?? failure
        }
    }

    /// The full check of a chain at `time`: OpenSSL's, then Apple's marker OIDs and the leaf key.
    func verifiedChain(_ header: CheckedHeader, at time: Int64) throws(ChainFailure) -> VerifiedChain {
        let (leaf, intermediate) = (header.leaf, header.intermediate)
        func refuse(_ detail: String) -> ChainFailure {
            ChainFailure(failure: VerificationError(.verificationFailure, detail), isOutsideValidity: false)
        }
        let root: Certificate
        switch trustStore.verify(leaf: leaf, intermediate: intermediate, at: time) {
        case .trusted(let anchor): root = anchor
        case .rejected(let reason):
            throw ChainFailure(
                failure: Self.chainFailure(reason, at: time),
                isOutsideValidity: reason == TrustStore.expiredReason || reason == TrustStore.notYetValidReason,
                trustReason: reason)
        }
        guard leaf.hasExtension(oid: Self.leafMarkerOID) else {
            throw refuse("the leaf certificate lacks Apple's marker OID \(Self.leafMarkerOID)")
        }
        guard intermediate.hasExtension(oid: Self.intermediateMarkerOID) else {
            throw refuse("the intermediate certificate lacks Apple's marker OID \(Self.intermediateMarkerOID)")
        }
        let leafKey: ECPublicKey
        do { leafKey = try leaf.publicKey() } catch { throw refuse("leaf key: \(error.reason)") }
        guard leafKey.curve == .p256 else {
            throw refuse("ES256 needs a P-256 leaf key, found \(leafKey.curve.rawValue)")
        }
        return VerifiedChain(leafKey: leafKey, root: root, time: time)
    }

    static func chainFailure(_ reason: String, at time: Int64) -> VerificationError {
        VerificationError(.verificationFailure, "certificate chain at \(iso8601(time)): \(reason)")
    }

    /// What a full check would say of a cached chain at `time`, outside its window.
    static func windowFailure(expired: Bool, at time: Int64) -> VerificationError {
        chainFailure(expired ? TrustStore.expiredReason : TrustStore.notYetValidReason, at: time)
    }
}
