import Foundation

/// Conversion between JOSE's raw ECDSA signatures (R‖S, fixed width, RFC 7518 §3.4) and the
/// DER `ECDSA-Sig-Value` SEQUENCE that OpenSSL signs and verifies.
package enum ECDSASignature {
    /// The DER form of a raw signature, or nil when its length is not twice `coordinateSize`.
    package static func der(fromRaw raw: some ContiguousBytes, coordinateSize: Int) -> [UInt8]? {
        raw.withUnsafeBytes { bytes -> [UInt8]? in
            guard bytes.count == 2 * coordinateSize else { return nil }
            let r = integer(bytes[0..<coordinateSize])
            let s = integer(bytes[coordinateSize..<(2 * coordinateSize)])
            let body = r + s
            return [0x30] + length(body.count) + body
        }
    }

    /// The raw R‖S form of a DER signature, each half left-padded to `coordinateSize`;
    /// nil when the DER is not a SEQUENCE of two INTEGERs that fit.
    package static func raw(fromDER der: [UInt8], coordinateSize: Int) -> [UInt8]? {
        var reader = DERReader(der)
        guard let sequence = reader.read(tag: 0x30), reader.isAtEnd else { return nil }
        var inner = DERReader(sequence)
        guard let r = inner.read(tag: 0x02), let s = inner.read(tag: 0x02), inner.isAtEnd,
            let paddedR = pad(r, to: coordinateSize), let paddedS = pad(s, to: coordinateSize)
        else { return nil }
        return paddedR + paddedS
    }

    /// A minimal DER INTEGER for an unsigned big-endian number.
    private static func integer(_ value: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
        var magnitude = Array(value.drop { $0 == 0 })
        if magnitude.isEmpty { magnitude = [0] }
        if magnitude[0] & 0x80 != 0 { magnitude.insert(0, at: 0) }
        return [0x02] + length(magnitude.count) + magnitude
    }

    private static func length(_ count: Int) -> [UInt8] {
        count < 0x80 ? [UInt8(count)] : [0x81, UInt8(count)]
    }

    private static func pad(_ integer: [UInt8], to size: Int) -> [UInt8]? {
        let magnitude = integer.drop { $0 == 0 }
        guard magnitude.count <= size else { return nil }
        return Array(repeating: 0, count: size - magnitude.count) + magnitude
    }
}

/// Reads tag-length-value items from DER with short and one- or two-byte long lengths.
package struct DERReader {
    private let bytes: [UInt8]
    private var offset = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package var isAtEnd: Bool { offset == bytes.count }

    /// The value of the next item when its tag is `tag`.
    package mutating func read(tag: UInt8) -> [UInt8]? {
        guard offset + 2 <= bytes.count, bytes[offset] == tag else { return nil }
        var length = Int(bytes[offset + 1])
        var start = offset + 2
        if length & 0x80 != 0 {
            let octets = length & 0x7F
            guard octets >= 1, octets <= 2, start + octets <= bytes.count else { return nil }
            length = bytes[start..<(start + octets)].reduce(0) { $0 << 8 | Int($1) }
            start += octets
        }
        guard start + length <= bytes.count else { return nil }
        offset = start + length
        return Array(bytes[start..<offset])
    }
}
