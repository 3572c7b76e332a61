import Crypto
import Foundation
import Synchronization

/// Remembers certificate chains already verified, so a payload signed by a known chain costs
/// one P-256 signature check instead of two P-384 certificate checks more.
///
/// Entries are keyed by the exact DER bytes of leaf and intermediate and belong to one trust
/// set of trusted roots, so one cache may serve several verifiers. An entry accepts only
/// effective times at which a full check accepted the chain (the spans between the edges of the
/// certificates' validity windows, judged as OpenSSL judges them), so a hit can never accept
/// what a full check would reject. Under a single root, it refuses other times with the reason
/// a full check would give; under several, a full check answers them. The cache is bounded;
/// when full, the least recently used entry goes. Thread-safe.
public final class ChainCache: Sendable {
    struct Key: Hashable {
        /// Identifies the set of trusted roots: a chain good for one set is unknown to another.
        var anchors: String
        var leaf: Data
        var intermediate: Data

        /// Buckets by the certificates' last bytes (their signatures, unique per certificate);
        /// equality still compares every byte of both certificates and the anchors.
        func hash(into hasher: inout Hasher) {
            hasher.combine(leaf.count)
            hasher.combine(intermediate.count)
            leaf.suffix(32).withUnsafeBytes { hasher.combine(bytes: $0) }
            intermediate.suffix(16).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    struct Entry {
        /// The leaf's P-256 public key, which verifies the JWS signature.
        var leafKey: ECPublicKey
        /// The times the chain is good at: sorted, apart from each other.
        var windows: [Range<Int64>]
        /// Whether a full check outside `windows` would refuse for exactly one certificate's
        /// dates (a single trusted root and a single window).
        var refusesOutside: Bool
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var lastHeader: SignedDataVerifier.CheckedHeader?
        /// Header segments of payloads that verified, newest last (`rememberSigner`).
        var signers: [[UInt8]] = []
        var clock: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    /// The most entries kept.
    public let capacity: Int
    private let state = Mutex(State())

    /// A cache holding at most `capacity` chains (Apple uses 32; a handful of chains are live).
    public init(capacity: Int = 64) {
        precondition(capacity > 0, "a chain cache needs room for one chain")
        self.capacity = capacity
    }

    /// What the cache knows of a chain at one time.
    enum Answer {
        /// The chain passed every check and is valid then: its leaf key.
        case valid(ECPublicKey)
        /// The chain passed every check at another time; then, a certificate is not valid yet
        /// (`expired` false) or has expired, and that is all a full check would find against it.
        case outsideWindow(expired: Bool)
        /// The chain passed every check at other times; only a full check can say which of
        /// several roots' dates it fails at this one, if any.
        case outsideWindows
        /// Not a chain the cache holds.
        case unknown
    }

    /// What is known of the chain `key` at `time`.
    ///
    /// Outside the windows every check but the dates still passes (none of them depends on the
    /// time). Under a single root the one window is the intersection of the three certificates'
    /// windows: before it no certificate has expired yet, after it every one has begun, so
    /// OpenSSL would report exactly one reason.
    /// A lookup counts as a hit or a miss unless `counting` is false (the chain was already
    /// looked up for the same payload, `leafKey(_:)`).
    func lookup(_ key: Key, at time: Int64, counting: Bool = true) -> Answer {
        guard let entry = use(key, counting: counting) else { return .unknown }
        if entry.windows.contains(where: { $0.contains(time) }) { return .valid(entry.leafKey) }
        guard entry.refusesOutside, let window = entry.windows.first else { return .outsideWindows }
        return .outsideWindow(expired: time >= window.upperBound)
    }

    /// The leaf key of the chain `key` if it passed every check at some time: enough to check a
    /// signature before the payload, whose date the window is judged at, is read.
    func leafKey(_ key: Key) -> ECPublicKey? {
        use(key, counting: true)?.leafKey
    }

    /// The entry of `key`, marked as just used; counted as a hit or a miss when `counting`.
    private func use(_ key: Key, counting: Bool) -> Entry? {
        state.withLock { state in
            state.clock += 1
            guard var entry = state.entries[key] else {
                if counting { state.misses += 1 }
                return nil
            }
            entry.lastUse = state.clock
            state.entries[key] = entry
            if counting { state.hits += 1 }
            return entry
        }
    }

    /// Records a chain that passed every check, valid inside `chain.windows`.
    func insert(_ key: Key, _ chain: SignedDataVerifier.LearnedChain) {
        state.withLock { state in
            state.clock += 1
            if state.entries[key] == nil, state.entries.count >= capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.entries[oldest] = nil
            }
            state.entries[key] = Entry(
                leafKey: chain.leafKey, windows: chain.windows, refusesOutside: chain.refusesOutside, lastUse: state.clock)
        }
    }

    /// The checked header last seen, if `segment` is byte-identical to it.
    ///
    /// Header checks (alg, x5c, base64 DER) depend on the header bytes alone, not on time or
    /// roots, so an identical header needs no second check; App Store reuses one header for
    /// every payload signed by one chain.
    func checkedHeader(_ segment: [UInt8]) -> SignedDataVerifier.CheckedHeader? {
        state.withLock { state in
            guard let last = state.lastHeader, last.matches(segment) else { return nil }
            return last
        }
    }

    /// Remembers a header that passed the header checks.
    func rememberHeader(_ header: SignedDataVerifier.CheckedHeader) {
        state.withLock { $0.lastHeader = header }
    }

    /// Remembers the header segment of a payload that verified in full (chain, signature and
    /// claims): App Store signs with a handful of chains, each with the same header bytes. The
    /// least recently seen goes past `signersKept`, so the one signing now stays.
    func rememberSigner(_ segment: [UInt8]) {
        state.withLock { state in
            if let index = state.signers.firstIndex(of: segment) {
                guard index != state.signers.count - 1 else { return }
                state.signers.remove(at: index)
            }
            state.signers.append(segment)
            if state.signers.count > Self.signersKept { state.signers.removeFirst() }
        }
    }

    /// Whether a payload with this header segment verified in full before: checking another
    /// costs a signature check, not a certificate chain's.
    func knowsSigner(_ segment: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            state.signers.contains { signer in
                signer.count == segment.count
                    && signer.withUnsafeBytes { memcmp($0.baseAddress!, segment.baseAddress!, segment.count) == 0 }
            }
        }
    }

    /// How many signers' headers are kept.
    static let signersKept = 8

    /// Forgets every chain.
    public func removeAll() {
        state.withLock {
            $0.entries.removeAll()
            $0.lastHeader = nil
        }
    }

    /// How many chains are held, and how many lookups hit and missed so far.
    public var statistics: (count: Int, hits: Int, misses: Int) {
        state.withLock { ($0.entries.count, $0.hits, $0.misses) }
    }
}
