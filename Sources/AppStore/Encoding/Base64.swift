import Foundation

/// Strict base64 and base64url codecs.
///
/// JWS segments are base64url without padding (RFC 7515 §2); `x5c` entries are standard
/// base64 with padding (RFC 7515 §4.1.6). Foundation's decoder accepts only the standard
/// alphabet, so this one handles both, rejects any character outside the chosen alphabet,
/// and rejects non-zero trailing bits, so one byte string has exactly one accepted text.
public enum Base64 {
    public enum Alphabet: Sendable {
        /// `+` and `/`, padded with `=`.
        case standard
        /// `-` and `_`, padding optional.
        case url
    }

    private static let invalid: UInt8 = 0xFF

    private static func table(_ alphabet: Alphabet) -> [UInt8] {
        var table = [UInt8](repeating: invalid, count: 256)
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
            + (alphabet == .standard ? Array("+/".utf8) : Array("-_".utf8))
        for (value, symbol) in symbols.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }

    private static let standardTable = table(.standard)
    private static let urlTable = table(.url)
    private static let standardSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Decodes `text`, or returns nil when it is not valid in `alphabet`.
    public static func decode(_ text: String, alphabet: Alphabet) -> Data? {
        var text = text
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0), alphabet: alphabet) }
    }

    /// Decodes `text`, or returns nil when it is not valid in `alphabet`.
    public static func decode(_ text: Substring, alphabet: Alphabet) -> Data? {
        var text = text
        return text.withUTF8 { decode(UnsafeRawBufferPointer($0), alphabet: alphabet) }
    }

    /// Decodes UTF-8 bytes, or returns nil when they are not valid in `alphabet`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, alphabet: Alphabet) -> Data? {
        var count = bytes.count
        var padding = 0
        while count > 0, bytes[count - 1] == UInt8(ascii: "=") {
            count -= 1
            padding += 1
        }
        switch alphabet {
        case .standard:
            guard (count + padding) % 4 == 0, padding == (4 - count % 4) % 4 else { return nil }
        case .url:
            guard padding == 0 || padding == (4 - count % 4) % 4 else { return nil }
        }
        guard count % 4 != 1 else { return nil }
        let table = alphabet == .standard ? standardTable : urlTable
        let outputCount = count / 4 * 3 + max(0, count % 4 - 1)
        var output = Data(count: outputCount)
        let ok = output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
            var accumulator: UInt32 = 0
            var bits = 0
            var written = 0
            for index in 0..<count {
                let value = table[Int(bytes[index])]
                guard value != invalid else { return false }
                accumulator = (accumulator << 6) | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    out[written] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                    written += 1
                }
            }
            // Leftover bits must be zero: otherwise two texts would decode to the same bytes.
            return accumulator & ((1 << UInt32(bits)) - 1) == 0
        }
        return ok ? output : nil
    }

    /// Encodes bytes; `.url` omits padding as JWS requires.
    public static func encode<D: DataProtocol>(_ data: D, alphabet: Alphabet) -> String {
        let symbols = alphabet == .standard ? standardSymbols : urlSymbols
        let bytes = Array(data)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in stride(from: 18, through: 0, by: -6) { output.append(symbols[Int(chunk >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var chunk = UInt32(bytes[index]) << 16
            if rest == 2 { chunk |= UInt32(bytes[index + 1]) << 8 }
            output.append(symbols[Int(chunk >> 18 & 63)])
            output.append(symbols[Int(chunk >> 12 & 63)])
            if rest == 2 { output.append(symbols[Int(chunk >> 6 & 63)]) }
            if alphabet == .standard { output.append(contentsOf: Array(repeating: UInt8(ascii: "="), count: 3 - rest)) }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
