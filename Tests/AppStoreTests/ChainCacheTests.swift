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

    /// Outcome of a verification: nil when accepted, else the status.
    func outcome(_ verifier: SignedDataVerifier, _ signed: String) -> VerificationError.Status? {
        do {
            _ = try verifier.verifyTransaction(signed, now: now)
            return nil
        } catch {
            return error.status
        }
    }

    @Test func cacheMatchesFullCheckAtEveryValidityBoundary() throws {
        let base = Int64(now.timeIntervalSince1970)
        let day: Int64 = 86_400
        // Windows overlapping so that each certificate's edge is the binding one somewhere.
        let chain = try TestChain(
            rootWindow: (base - 100 * day, base + 100 * day),
            intermediateWindow: (base - 200 * day, base + 50 * day),
            leafWindow: (base - 50 * day, base + 200 * day))
        let edges = [
            chain.root.notBefore, chain.root.notAfter, chain.intermediate.notBefore, chain.intermediate.notAfter,
            chain.leaf.notBefore, chain.leaf.notAfter,
        ]
        let cache = ChainCache()
        let cached = try Fixtures.verifier(roots: [chain.root], cache: cache)
        let uncached = try Fixtures.verifier(roots: [chain.root], cache: nil)
        // Warm the cache at a moment valid for all three.
        #expect(outcome(cached, try Fixtures.sign(Fixtures.transactionJSON(signedDate: base * 1000), with: chain)) == nil)
        var accepted = 0
        var rejected = 0
        for edge in edges {
            for offsetMs: Int64 in [-1001, -1000, -1, 0, 1, 999, 1000] {
                let signed = try Fixtures.sign(Fixtures.transactionJSON(signedDate: edge * 1000 + offsetMs), with: chain)
                let full = outcome(uncached, signed)
                #expect(outcome(cached, signed) == full, "signedDate \(edge * 1000 + offsetMs)")
                if full == nil { accepted += 1 } else { rejected += 1 }
            }
        }
        // The sweep really crossed edges both ways.
        #expect(accepted > 0 && rejected > 0)
        #expect(cache.statistics.hits > 0)
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
