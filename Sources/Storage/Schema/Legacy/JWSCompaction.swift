import AppStore
import Crypto
import Foundation
import Synchronization

/// A compact JWS without its repeated certificate chains, and back, byte for byte: how
/// `notifications.compact_payload` kept payloads from migration 7 until migration 24 replaced it
/// with zstd (`StoredPayloads`). Kept to read those rows once, when migration 24 converts them.
///
/// Apple's notification is a JWS whose payload holds two more (the transaction and the renewal
/// info); each of the three carries its `x5c` chain in its header, base64url-encoded, the nested
/// ones a second time through the payload's encoding. Those headers are most of the bytes and
/// are the same in every notification signed by the same certificate. The compact form names each
/// header by its SHA-256 (stored once, elsewhere) and keeps the payload as its decoded JSON text:
///
///     NUL <outer header SHA-256, hex> NUL "." <payload, each nested header as NUL <hex> NUL> "." <signature>
///
/// A nested JWS's payload segment can go too, when the caller keeps that payload elsewhere (the
/// store keeps the transaction and renewal info it decoded in columns of their own): given as
/// `externals`, a segment that is exactly the base64url encoding of `externals[i]` becomes
///
///     0x01 <the digit i> <the first 8 bytes of the external's SHA-256, hex>
///
/// and `expand` must be given the same externals to put it back: one missing, or different from
/// the one referred to (its digest does not match), gives nil, never another JWS. Such a form
/// starts with one 0x01 byte before the outer header's reference; in a form without it (every form
/// made before externals existed), a 0x01 is content like any other byte.
///
/// NUL never occurs in a JWS segment, and `compact` refuses a payload holding one, and refers to
/// no external in a form holding a 0x01, so references cannot be confused with content. `compact`
/// is pure (it can run on any thread) and only returns a form that `expand` turns back into
/// exactly the input: it checks. Anything else (a header too short to gain from, a payload that is
/// not canonical base64url) gives nil, and the caller keeps the JWS as it is.
public enum JWSCompaction {
    /// A compact form and the headers it names.
    public struct Compacted: Sendable, Equatable {
        /// The compact bytes.
        public var body: Data
        /// Every header `body` names, by the lowercase hex SHA-256 of its text.
        public var headers: [String: String]
    }

    /// Headers shorter than this are left in place: a reference would save next to nothing.
    public static let minimumHeaderBytes = 256

    private static let reference = UInt8(0)
    private static let externalReference = UInt8(1)
    /// At most this many externals: each is named by one decimal digit.
    public static let maximumExternals = 10
    /// The hex digits of an external's SHA-256 that its reference carries.
    private static let externalDigestLength = 16
    /// A reference to an external: 0x01, the index digit, the digest.
    private static let externalReferenceLength = 2 + externalDigestLength

    /// The reference to `external`, at `index` of the externals.
    private static func externalReferenceBytes(at index: Int, to external: Data) -> [UInt8] {
        [externalReference, UInt8(ascii: "0") + UInt8(index)] + Array(externalDigest(external).utf8)
    }

    private static func externalDigest(_ external: Data) -> String {
        String(Digest.hex(Digest.sha256(external)).prefix(externalDigestLength))
    }
    private static let dot = UInt8(ascii: ".")

    /// A header already hashed: its bytes, its text and the hex SHA-256 of those bytes.
    private struct KnownHeader: Sendable {
        var bytes: [UInt8]
        var text: String
        var hash: String
        /// The reference that stands for this header: NUL, `hash`, NUL.
        var referenceBytes: [UInt8]
        /// Whether every byte is a base64url symbol: a nested header that repeats this one is then
        /// found where it ends without scanning it (`nestedHeaders`).
        var isSymbols: Bool

        init(_ header: UnsafeRawBufferPointer) {
            bytes = Array(header)
            text = String(decoding: header, as: UTF8.self)
            hash = Digest.hex(Digest.sha256(header))
            referenceBytes = [JWSCompaction.reference] + Array(hash.utf8) + [JWSCompaction.reference]
            isSymbols = Base64.endOfSymbols(in: header, from: 0, alphabet: .url) == header.count
        }

        func matches(_ other: UnsafeRawBufferPointer) -> Bool {
            guard bytes.count == other.count else { return false }
            guard !other.isEmpty else { return true }
            return bytes.withUnsafeBytes { memcmp($0.baseAddress!, other.baseAddress!, other.count) == 0 }
        }
    }

    /// The last header hashed: App Store signs with one chain for months, so nearly every
    /// notification repeats it (one SHA-256 of about 2.5 kB, and its copies, saved per
    /// notification). Matched by bytes, never by `String ==`.
    private static let lastHashed = Mutex<KnownHeader?>(nil)

    /// `header` as a known header, from the last one when its bytes are the same.
    private static func known(_ header: UnsafeRawBufferPointer) -> KnownHeader {
        if let last = lastHashed.withLock({ $0 }), last.matches(header) { return last }
        let entry = KnownHeader(header)
        lastHashed.withLock { $0 = entry }
        return entry
    }

    /// The compact form of `jws`; nil when the JWS gains nothing or would not come back exactly.
    ///
    /// - Parameter payload: the payload segment already decoded, when the caller has it; it is
    ///   trusted no more than the rest, since the result must expand to exactly `jws`.
    /// - Parameter externals: payloads kept elsewhere (see the type's description); nil entries keep
    ///   their index free.
    public static func compact(_ jws: String, payload: Data? = nil, externals: [Data?] = []) -> Compacted? {
        var text = jws
        let compacted = text.withUTF8 { compact(UnsafeRawBufferPointer($0), decoded: payload) }
        return compacted.map { referring($0, to: externals) }
    }

    /// `compacted` with each nested payload segment that is exactly the base64url encoding of an
    /// external, and longer than a reference, replaced by a reference to it (at most one segment
    /// per external).
    ///
    /// A nested payload segment runs from the dot after a nested header's reference to the next
    /// dot. Exactness holds part by part: a segment is replaced only when it is the one encoding of
    /// the external's bytes, which `expand` encodes again; and without a 0x01 in the body before,
    /// the references (and the leading 0x01 that marks the form) are the only ones `split` finds.
    private static func referring(_ compacted: Compacted, to externals: [Data?]) -> Compacted {
        guard externals.contains(where: { $0 != nil }), externals.count <= maximumExternals else { return compacted }
        let body = compacted.body
        let replacements = body.withUnsafeBytes { (bytes) -> [(range: Range<Int>, reference: [UInt8])] in
            guard !contains(bytes, externalReference), let (_, afterOuter) = readReference(bytes, at: 0) else { return [] }
            var found: [(range: Range<Int>, reference: [UInt8])] = []
            var placed = Set<Int>()
            var index = afterOuter + 1
            while index < bytes.count, let next = firstIndex(of: reference, in: bytes, from: index) {
                guard let (_, after) = readReference(bytes, at: next) else { break }
                index = after
                guard after < bytes.count, bytes[after] == dot, let end = firstIndex(of: dot, in: bytes, from: after + 1)
                else { continue }
                let segment = UnsafeRawBufferPointer(rebasing: bytes[(after + 1)..<end])
                // A reference as long as the segment would save nothing.
                guard segment.count > externalReferenceLength else {
                    index = end
                    continue
                }
                for (position, external) in externals.enumerated() where !placed.contains(position) {
                    guard let external, !external.isEmpty,
                        external.withUnsafeBytes({ Base64.isEncoding(of: $0, text: segment, alphabet: .url) })
                    else { continue }
                    found.append(((after + 1)..<end, externalReferenceBytes(at: position, to: external)))
                    placed.insert(position)
                    break
                }
                index = end
            }
            return found
        }
        guard !replacements.isEmpty else { return compacted }
        var result = Data([externalReference])
        result.reserveCapacity(body.count)
        var copied = 0
        body.withUnsafeBytes { bytes in
            for replacement in replacements {
                append(UnsafeRawBufferPointer(rebasing: bytes[copied..<replacement.range.lowerBound]), to: &result)
                result.append(contentsOf: replacement.reference)
                copied = replacement.range.upperBound
            }
            append(UnsafeRawBufferPointer(rebasing: bytes[copied...]), to: &result)
        }
        return Compacted(body: result, headers: compacted.headers)
    }

    /// Builds the compact form and proves, part by part, that `expand` gives `text` back:
    /// - the outer header and the signature are kept as text: `text` is a `String`'s UTF-8 and
    ///   they end at dots, so they are valid UTF-8 and a `String` of them has the same bytes;
    /// - the payload segment must be exactly the base64url encoding of `payload` (which rules out
    ///   a wrong decoded payload and any non-canonical encoding), and `payload` holds no NUL, so
    ///   the references put in place of the nested headers are the only NULs and `expand` puts
    ///   back exactly the bytes they replaced (base64url symbols, which are ASCII);
    /// - the signature follows the last dot, so it holds none and `expand` finds where it starts
    ///   (a signature with a NUL is left alone, as before).
    private static func compact(_ text: UnsafeRawBufferPointer, decoded: Data?) -> Compacted? {
        guard let firstDot = firstIndex(of: dot, in: text), let lastDot = text.lastIndex(of: dot), firstDot < lastDot,
            firstDot >= minimumHeaderBytes
        else { return nil }
        let outer = UnsafeRawBufferPointer(rebasing: text[..<firstDot])
        let segment = UnsafeRawBufferPointer(rebasing: text[(firstDot + 1)..<lastDot])
        let signature = UnsafeRawBufferPointer(rebasing: text[(lastDot + 1)...])
        guard !contains(signature, reference),
            let payload = decoded ?? Base64.decode(segment, alphabet: .url),
            !payload.withUnsafeBytes({ contains($0, reference) }),
            payload.withUnsafeBytes({ Base64.isEncoding(of: $0, text: segment, alphabet: .url) })
        else { return nil }
        var seen: [KnownHeader] = []
        var body = Data()
        body.reserveCapacity(payload.count + signature.count + 256)
        func refer(to header: UnsafeRawBufferPointer) {
            // The nested headers usually repeat the outer one: hash each distinct header once.
            let entry: KnownHeader
            if let found = seen.first(where: { $0.matches(header) }) {
                entry = found
            } else {
                entry = known(header)
                seen.append(entry)
            }
            // Appended through `append(_:to:)`: `Data.append` of single bytes goes through `replaceSubrange`.
            entry.referenceBytes.withUnsafeBytes { append($0, to: &body) }
        }
        refer(to: outer)
        body.append(dot)
        payload.withUnsafeBytes { bytes in
            var copied = 0
            let likely = seen[0].isSymbols ? seen[0].bytes : nil
            for (start, end) in nestedHeaders(in: bytes, likely: likely) {
                append(UnsafeRawBufferPointer(rebasing: bytes[copied..<start]), to: &body)
                refer(to: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                copied = end
            }
            append(UnsafeRawBufferPointer(rebasing: bytes[copied...]), to: &body)
        }
        body.append(dot)
        append(signature, to: &body)
        // Distinct headers under one hash (a SHA-256 collision) could not be told apart again.
        let headers = Dictionary(seen.map { ($0.hash, $0.text) }) { first, _ in first }
        guard headers.count == seen.count else { return nil }
        return Compacted(body: body, headers: headers)
    }

    /// The JWS a compact form stands for; nil when `body` is not one, names a header `header`
    /// (given the hex SHA-256) does not know, or refers to an external not given.
    ///
    /// - Parameter externals: the payloads `compact` was given as externals, at the same indexes.
    public static func expand<Failure: Error>(
        _ body: Data, externals: [Data?] = [], header: (String) throws(Failure) -> String?
    ) throws(Failure) -> String? {
        let parts = body.withUnsafeBytes { (bytes) -> (outer: String, segments: [Segment], signature: String)? in
            split(bytes)
        }
        guard let parts, let outer = try header(parts.outer) else { return nil }
        var payload: [UInt8] = []
        payload.reserveCapacity(body.count + 8 * 1024)
        for segment in parts.segments {
            switch segment {
            case .bytes(let range): body.withUnsafeBytes { payload.append(contentsOf: $0[range]) }
            case .header(let hash):
                guard let nested = try header(hash) else { return nil }
                payload.append(contentsOf: nested.utf8)
            case .external(let index, let digest):
                guard index < externals.count, let external = externals[index], externalDigest(external) == digest else {
                    return nil
                }
                payload.append(contentsOf: Base64.encode(external, alphabet: .url).utf8)
            }
        }
        return outer + "." + Base64.encode(payload, alphabet: .url) + "." + parts.signature
    }

    /// A run of a compact payload: bytes as they are, a reference to a header, or one to an external.
    private enum Segment {
        case bytes(Range<Int>)
        case header(String)
        case external(Int, digest: String)
    }

    /// The outer header's hash, the payload's runs and the signature of a compact form.
    private static func split(_ bytes: UnsafeRawBufferPointer) -> (outer: String, segments: [Segment], signature: String)? {
        let refersToExternals = bytes.first == externalReference
        let start = refersToExternals ? 1 : 0
        guard bytes.count > start, bytes[start] == reference, let signatureDot = bytes.lastIndex(of: dot),
            let (outer, afterOuter) = readReference(bytes, at: start), afterOuter < signatureDot, bytes[afterOuter] == dot
        else { return nil }
        var segments: [Segment] = []
        var index = afterOuter + 1
        let region = UnsafeRawBufferPointer(rebasing: bytes[..<signatureDot])
        while index < signatureDot {
            let header = firstIndex(of: reference, in: region, from: index)
            let external = refersToExternals ? firstIndex(of: externalReference, in: region, from: index) : nil
            let next: Int
            switch (header, external) {
            case (nil, nil):
                segments.append(.bytes(index..<signatureDot))
                index = signatureDot
                continue
            case (let header?, nil): next = header
            case (nil, let external?): next = external
            case (let header?, let external?): next = min(header, external)
            }
            if next > index { segments.append(.bytes(index..<next)) }
            if next == external {
                let end = next + externalReferenceLength
                guard end <= signatureDot else { return nil }
                let digit = Int(bytes[next + 1]) - Int(UInt8(ascii: "0"))
                guard (0..<maximumExternals).contains(digit) else { return nil }
                let digest = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(next + 2)..<end]), as: UTF8.self)
                segments.append(.external(digit, digest: digest))
                index = end
                continue
            }
            guard let (hash, after) = readReference(bytes, at: next), after <= signatureDot else { return nil }
            segments.append(.header(hash))
            index = after
        }
        let signature = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(signatureDot + 1)...]), as: UTF8.self)
        return (outer, segments, signature)
    }

    // MARK: - Parts

    /// The ranges of JWS header segments nested in JSON text: a string that starts with `eyJ`
    /// (`{"` encoded), runs on in base64url, is followed by a dot, and is long enough to matter.
    ///
    /// - Parameter likely: a header of base64url symbols only that the nested ones probably repeat
    ///   (the outer one): where it is followed by a dot, that is where the run ends, found by one
    ///   comparison instead of a scan of every symbol. The ranges are the same either way.
    static func nestedHeaders(in bytes: UnsafeRawBufferPointer, likely: [UInt8]? = nil) -> [(Int, Int)] {
        var found: [(Int, Int)] = []
        var index = 0
        while index + 4 < bytes.count {
            // Only a quote can open one: jump from quote to quote.
            guard let quote = memchr(bytes.baseAddress! + index, Int32(UInt8(ascii: "\"")), bytes.count - index) else {
                break
            }
            index = UnsafeRawPointer(quote) - bytes.baseAddress!
            guard index + 4 < bytes.count, bytes[index + 1] == UInt8(ascii: "e"), bytes[index + 2] == UInt8(ascii: "y"),
                bytes[index + 3] == UInt8(ascii: "J")
            else {
                index += 1
                continue
            }
            let end =
                repeated(likely, in: bytes, at: index + 1) ?? Base64.endOfSymbols(in: bytes, from: index + 1, alphabet: .url)
            if end < bytes.count, bytes[end] == dot, end - (index + 1) >= minimumHeaderBytes {
                found.append((index + 1, end))
            }
            index = end
        }
        return found
    }

    /// The end of `header` when `bytes` holds it at `start` followed by a dot, else nil.
    private static func repeated(_ header: [UInt8]?, in bytes: UnsafeRawBufferPointer, at start: Int) -> Int? {
        guard let header, !header.isEmpty, start + header.count < bytes.count, bytes[start + header.count] == dot else {
            return nil
        }
        let same = header.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress! + start, header.count) == 0 }
        return same ? start + header.count : nil
    }

    /// Appends with one copy: `Data.append(contentsOf:)` takes a raw buffer as a generic sequence.
    private static func append(_ bytes: UnsafeRawBufferPointer, to data: inout Data) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        data.append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }

    private static func contains(_ bytes: UnsafeRawBufferPointer, _ byte: UInt8) -> Bool {
        firstIndex(of: byte, in: bytes) != nil
    }

    private static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
            let found = memchr(base + start, Int32(byte), bytes.count - start)
        else { return nil }
        return UnsafeRawPointer(found) - base
    }

    /// The hash named by the reference at `index` and the index after it.
    private static func readReference(_ bytes: UnsafeRawBufferPointer, at index: Int) -> (String, Int)? {
        let hashLength = 64
        let end = index + 1 + hashLength
        guard bytes[index] == reference, end < bytes.count, bytes[end] == reference else { return nil }
        return (String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self), end + 1)
    }
}
