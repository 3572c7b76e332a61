import AppStoreFixtures
import Crypto
import Foundation
import Testing

@testable import AppStore

/// The cache against a full check when several roots are trusted: a root re-issued with the
/// same key and a new validity, with or without a gap, and unrelated roots beside it.
@Suite("ChainCache with several roots: as lenient as a full check, and no more")
struct ChainCacheRootsTests {
    let now = Fixtures.now
    static let day: Int64 = 86_400

    /// A chain whose leaf and intermediate outlive its root.
    func longLivedChain() throws -> TestChain {
        let base = Int64(now.timeIntervalSince1970)
        return try TestChain(
            name: "Reissued Test", rootWindow: (base - 100 * Self.day, base + 100 * Self.day),
            intermediateWindow: (base - 200 * Self.day, base + 400 * Self.day),
            leafWindow: (base - 50 * Self.day, base + 300 * Self.day))
    }

    /// A chain whose root begins after its leaf and intermediate do: no root is valid when
    /// both of them first are, so the cache learns the chain at a payload's date instead.
    func lateRootChain() throws -> TestChain {
        let base = Int64(now.timeIntervalSince1970)
        return try TestChain(
            name: "Reissued Test", rootWindow: (base + 10 * Self.day, base + 100 * Self.day),
            intermediateWindow: (base - 200 * Self.day, base + 400 * Self.day),
            leafWindow: (base - 50 * Self.day, base + 300 * Self.day))
    }

    /// `chain`'s root issued again: the same subject and key, valid from `start` to `end` days
    /// after now.
    func reissuedRoot(of chain: TestChain, days start: Int64, _ end: Int64) throws -> Certificate {
        let base = Int64(now.timeIntervalSince1970)
        return try CertificateBuilder(
            subjectCommonName: "Reissued Test Root CA", notBefore: base + start * Self.day,
            notAfter: base + end * Self.day, basicConstraints: "critical,CA:TRUE",
            keyUsage: "critical,keyCertSign,cRLSign"
        ).build(key: chain.rootKey, issuer: nil, issuerKey: chain.rootKey)
    }

    func outcome(_ verifier: SignedDataVerifier, _ signed: String) -> String? {
        verifier.transactionOutcome(signed, now: now)
    }

    /// Payloads of `chain` dated at and around every edge of its certificates and `roots`, and
    /// in the middle of each span between two edges.
    func sweep(_ chain: TestChain, roots: [Certificate]) throws -> [String] {
        let certificates = [chain.leaf, chain.intermediate] + roots
        let edges = Set(certificates.flatMap { [$0.notBefore, $0.notAfter] }).sorted()
        let middles = zip(edges, edges.dropFirst()).map { ($0 + $1) / 2 }
        let times =
            edges.flatMap { edge in [Int64(-1001), -1, 0, 999, 1000].map { edge * 1000 + $0 } }
            + middles.map { $0 * 1000 }
        return try times.map { try Fixtures.sign(Fixtures.transactionJSON(signedDate: $0), with: chain) }
    }

    /// Every payload of the sweep, twice, gets the full check's answer from a cached verifier,
    /// whether the cache first meets the chain at `now` or at the sweep's first payload (learned
    /// then inside the leaf's and intermediate's windows, or at the payload's date when no root
    /// is valid there).
    func expectCacheAgrees(_ chain: TestChain, roots: [Certificate], warm: Bool) throws -> (accepted: Int, rejected: Int) {
        let cache = ChainCache()
        let cached = try Fixtures.verifier(roots: roots, cache: cache)
        let full = try Fixtures.verifier(roots: roots, cache: nil)
        if warm { #expect(outcome(cached, try Fixtures.sign(Fixtures.transactionJSON(), with: chain)) == nil) }
        var counts = (accepted: 0, rejected: 0)
        let payloads = try sweep(chain, roots: roots)
        for signed in payloads + payloads {
            let expected = outcome(full, signed)
            #expect(outcome(cached, signed) == expected)
            if expected == nil { counts.accepted += 1 } else { counts.rejected += 1 }
        }
        #expect(cache.statistics.count == 1)
        return counts
    }

    @Test(arguments: [true, false])
    func aRootReissuedWithALaterWindowExtendsTheChain(warm: Bool) throws {
        let chain = try longLivedChain()
        let reissued = try reissuedRoot(of: chain, days: 50, 500)
        let counts = try expectCacheAgrees(chain, roots: [chain.root, reissued], warm: warm)
        #expect(counts.accepted > 0 && counts.rejected > 0)
        // Past the first root's end, under the second: accepted from the cache.
        try expectAcceptedFromTheCache(
            chain, roots: [chain.root, reissued], learnedAt: Fixtures.nowMs, then: (chain.root.notAfter + 10 * Self.day) * 1000)
    }

    /// A payload dated `learnedAt` is accepted, and with it the chain learned; then one dated
    /// `then` is accepted from the cache.
    func expectAcceptedFromTheCache(_ chain: TestChain, roots: [Certificate], learnedAt: Int64, then: Int64) throws {
        let cache = ChainCache()
        let verifier = try Fixtures.verifier(roots: roots, cache: cache)
        #expect(outcome(verifier, try Fixtures.sign(Fixtures.transactionJSON(signedDate: learnedAt), with: chain)) == nil)
        let hits = cache.statistics.hits
        #expect(outcome(verifier, try Fixtures.sign(Fixtures.transactionJSON(signedDate: then), with: chain)) == nil)
        #expect(cache.statistics.hits == hits + 1)
    }

    @Test(arguments: [true, false])
    func aGapBetweenTheTwoRootsIsRefusedAsAFullCheckRefusesIt(warm: Bool) throws {
        let chain = try longLivedChain()
        let reissued = try reissuedRoot(of: chain, days: 150, 500)
        let counts = try expectCacheAgrees(chain, roots: [reissued, chain.root], warm: warm)
        #expect(counts.accepted > 0 && counts.rejected > 0)
        let verifier = try Fixtures.verifier(roots: [chain.root, reissued])
        let inGap = (chain.root.notAfter + 10 * Self.day) * 1000
        #expect(outcome(verifier, try Fixtures.sign(Fixtures.transactionJSON(signedDate: inGap), with: chain)) != nil)
    }

    @Test(arguments: [true, false])
    func unrelatedRootsBesideTheChainsChangeNothing(warm: Bool) throws {
        let chain = try longLivedChain()
        let roots = [Fixtures.otherChain.root, chain.root, Fixtures.chain.root]
        let counts = try expectCacheAgrees(chain, roots: roots, warm: warm)
        #expect(counts.accepted > 0 && counts.rejected > 0)
    }

    /// No root is valid when the leaf and intermediate begin: the chain is learned at the first
    /// payload's date a full check accepts, with the spans of both roots, gap and all.
    @Test func aChainLearnedAtAPayloadsDateHasEveryRootsSpans() throws {
        let chain = try lateRootChain()
        let reissued = try reissuedRoot(of: chain, days: 150, 500)
        let counts = try expectCacheAgrees(chain, roots: [chain.root, reissued], warm: false)
        #expect(counts.accepted > 0 && counts.rejected > 0)
        // Under the second root, from the cache.
        try expectAcceptedFromTheCache(
            chain, roots: [chain.root, reissued], learnedAt: (chain.root.notBefore + Self.day) * 1000,
            then: (reissued.notBefore + Self.day) * 1000)
    }
}
