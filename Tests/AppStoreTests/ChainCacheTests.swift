import AppStoreFixtures
import Crypto
import Foundation
import Synchronization
import Testing

@testable import AppStore

@Suite("ChainCache: fast, bounded, and never more lenient than a full check")
struct ChainCacheTests {
    let now = Fixtures.now

    @Test func warmVerificationHitsTheCacheAndAgreesWithCold() throws {
        let cache = ChainCache()
        let warm = try Fixtures.verifier(cache: cache)
        let cold = try Fixtures.verifier(cache: nil)
        for _ in 0..<3 {
            let signed = try Fixtures.signedNotification()
            let a = try warm.verifyNotification(signed, now: now)
            let b = try cold.verifyNotification(signed, now: now)
            #expect(a.notification.json == b.notification.json)
        }
        let stats = cache.statistics
        #expect(stats.count == 1)
        #expect(stats.misses == 1)
        #expect(stats.hits == 8)  // 3 notifications × 3 JWS, the first one missed
    }

    func outcome(_ verifier: SignedDataVerifier, _ signed: String) -> String? {
        verifier.transactionOutcome(signed, now: now)
    }

    /// Windows overlapping so that each certificate's edge is the binding one somewhere.
    func overlappingChain(_ leafOID: Bool = true) throws -> TestChain {
        let base = Int64(now.timeIntervalSince1970)
        let day: Int64 = 86_400
        return try TestChain(
            rootWindow: (base - 100 * day, base + 100 * day),
            intermediateWindow: (base - 200 * day, base + 50 * day),
            leafWindow: (base - 50 * day, base + 200 * day), leafOID: leafOID)
    }

    /// Payloads of `chain` dated at and around each certificate's validity edges.
    func edgePayloads(_ chain: TestChain) throws -> [String] {
        let edges = [
            chain.root.notBefore, chain.root.notAfter, chain.intermediate.notBefore, chain.intermediate.notAfter,
            chain.leaf.notBefore, chain.leaf.notAfter,
        ]
        return try edges.flatMap { edge in
            try [Int64(-1001), -1000, -1, 0, 1, 999, 1000].map { offsetMs in
                try Fixtures.sign(Fixtures.transactionJSON(signedDate: edge * 1000 + offsetMs), with: chain)
            }
        }
    }

    @Test(arguments: [true, false])
    func cacheMatchesFullCheckAtEveryValidityBoundary(warmedInsideTheWindow: Bool) throws {
        let chain = try overlappingChain()
        let cache = ChainCache()
        let cached = try Fixtures.verifier(roots: [chain.root], cache: cache)
        let uncached = try Fixtures.verifier(roots: [chain.root], cache: nil)
        if warmedInsideTheWindow {
            let signedDate = Int64(now.timeIntervalSince1970) * 1000
            #expect(outcome(cached, try Fixtures.sign(Fixtures.transactionJSON(signedDate: signedDate), with: chain)) == nil)
        }
        var accepted = 0
        var rejected = 0
        // Twice: the first sight of the chain may be outside its window (then it is learned).
        for signed in try edgePayloads(chain) + edgePayloads(chain) {
            let full = outcome(uncached, signed)
            #expect(outcome(cached, signed) == full)
            if full == nil { accepted += 1 } else { rejected += 1 }
        }
        // The sweep really crossed edges both ways, and the cache answered.
        #expect(accepted > 0 && rejected > 0)
        #expect(cache.statistics.count == 1)
        #expect(cache.statistics.hits > 0)
    }

    @Test func aChainFirstSeenOutsideItsWindowIsAnsweredFromTheCacheAfter() throws {
        let chain = try overlappingChain()
        let cache = ChainCache()
        let verifier = try Fixtures.verifier(roots: [chain.root], cache: cache)
        let late = try Fixtures.sign(
            Fixtures.transactionJSON(signedDate: chain.intermediate.notAfter * 1000 + 5000), with: chain)
        let first = outcome(verifier, late)
        #expect(first?.hasSuffix("certificate has expired") == true)
        #expect(cache.statistics.count == 1)
        let hits = cache.statistics.hits
        for _ in 0..<3 { #expect(outcome(verifier, late) == first) }
        #expect(cache.statistics.hits == hits + 3)
        #expect(outcome(verifier, try Fixtures.sign(Fixtures.transactionJSON(), with: chain)) == nil)
    }

    @Test func aChainBadInsideItsWindowIsNotLearned() throws {
        // Refused for its dates, and inside them for the missing marker OID: nothing to cache.
        let withoutOID = try overlappingChain(false)
        let other = try overlappingChain()
        let cache = ChainCache()
        let verifier = try Fixtures.verifier(roots: [withoutOID.root], cache: cache)
        let lateDate = withoutOID.intermediate.notAfter * 1000 + 5000
        #expect(outcome(verifier, try Fixtures.sign(Fixtures.transactionJSON(signedDate: lateDate), with: withoutOID)) != nil)
        // Or under a root this verifier does not trust.
        #expect(outcome(verifier, try Fixtures.sign(Fixtures.transactionJSON(signedDate: lateDate), with: other)) != nil)
        #expect(cache.statistics.count == 0)
        let inside = try Fixtures.sign(Fixtures.transactionJSON(), with: withoutOID)
        #expect(outcome(verifier, inside)?.contains("marker OID") == true)
    }

    @Test func cachedChainDoesNotExcuseABadSignature() throws {
        let verifier = try Fixtures.verifier()
        _ = try verifier.verifyNotification(try Fixtures.signedNotification(), now: now)
        // Same chain (a cache hit), but signed by another key.
        let signed = try JWSSigner(key: Fixtures.otherChain.leafKey, x5c: Fixtures.chain.x5c)
            .sign(payload: JSONSerialization.data(withJSONObject: Fixtures.transactionJSON()))
        expectRejected(.verificationFailure) { _ = try verifier.verifyTransaction(signed, now: now) }
    }

    @Test func sharedCacheNeverCarriesTrustAcrossRootSets() throws {
        let cache = ChainCache()
        let trustsChain = try Fixtures.verifier(roots: [Fixtures.chain.root], cache: cache)
        let trustsOther = try Fixtures.verifier(roots: [Fixtures.otherChain.root], cache: cache)
        let signed = try Fixtures.signedNotification()
        _ = try trustsChain.verifyNotification(signed, now: now)
        expectRejected(.verificationFailure) { _ = try trustsOther.verifyNotification(signed, now: now) }
    }

    @Test func cacheIsBounded() throws {
        let cache = ChainCache(capacity: 2)
        var roots: [Certificate] = []
        var payloads: [String] = []
        for index in 0..<4 {
            let chain = try TestChain(now: now, name: "Bounded \(index)")
            roots.append(chain.root)
            payloads.append(try Fixtures.sign(Fixtures.transactionJSON(), with: chain))
        }
        let verifier = try Fixtures.verifier(roots: roots, cache: cache)
        for payload in payloads { _ = try verifier.verifyTransaction(payload, now: now) }
        #expect(cache.statistics.count == 2)
        // The evicted chains still verify, in full.
        for payload in payloads { _ = try verifier.verifyTransaction(payload, now: now) }
    }

    @Test func concurrentVerificationIsSafe() throws {
        let verifier = try Fixtures.verifier()
        let payloads = try (0..<32).map { _ in try Fixtures.signedNotification() }
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 256) { index in
            do { _ = try verifier.verifyNotification(payloads[index % payloads.count], now: Fixtures.now) } catch {
                failures.add()
            }
        }
        #expect(failures.count == 0)
    }
}

final class Failures: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
