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
        let symbols =
            Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
            + (alphabet == .standard ? Array("+/".utf8) : Array("-_".utf8))
        for (value, symbol) in symbols.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }

    private static let standardTable = table(.standard)
    private static let urlTable = table(.url)
    private static let standardSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The index of the first byte from `start` on that is not a symbol of `alphabet`, or
    /// `bytes.count`: one table lookup per byte, for scans over kilobytes.
    public static func endOfSymbols(in bytes: UnsafeRawBufferPointer, from start: Int, alphabet: Alphabet) -> Int {
        (alphabet == .standard ? standardTable : urlTable).withUnsafeBufferPointer { table in
            var index = start
            while index < bytes.count, table[Int(bytes[index])] != invalid { index += 1 }
            return index
        }
    }

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
        let outputCount = count / 4 * 3 + max(0, count % 4 - 1)
        var output = Data(count: outputCount)
        let ok = (alphabet == .standard ? standardTable : urlTable).withUnsafeBufferPointer { table in
            output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
                decode(bytes, count: count, table: table, into: out)
            }
        }
        return ok ? output : nil
    }

    /// The inner loop: four symbols to three bytes at a time, then the tail.
    private static func decode(
        _ input: UnsafeRawBufferPointer, count: Int, table: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer
    ) -> Bool {
        var read = 0
        var written = 0
        var invalidSeen: UInt8 = 0
        while read + 4 <= count {
            let a = table[Int(input[read])]
            let b = table[Int(input[read + 1])]
            let c = table[Int(input[read + 2])]
            let d = table[Int(input[read + 3])]
            invalidSeen |= (a | b | c | d) & 0xC0
            let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            out[written] = UInt8(truncatingIfNeeded: chunk >> 16)
            out[written + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
            out[written + 2] = UInt8(truncatingIfNeeded: chunk)
            read += 4
            written += 3
        }
        guard invalidSeen == 0 else { return false }
        let rest = count - read
        guard rest >= 2 else { return rest == 0 }
        let a = table[Int(input[read])]
        let b = table[Int(input[read + 1])]
        let c = rest == 3 ? table[Int(input[read + 2])] : 0
        guard (a | b | c) & 0xC0 == 0 else { return false }
        out[written] = a << 2 | b >> 4
        if rest == 3 {
            out[written + 1] = b << 4 | c >> 2
            // The unused low bits must be zero: otherwise two texts would decode to the same bytes.
            return c & 0x03 == 0
        }
        return b & 0x0F == 0
    }

    /// Whether `text` is exactly what `encode(bytes, alphabet:)` gives, compared as it is
    /// encoded, without building the text: one valid, canonical encoding per byte string.
    public static func isEncoding(of bytes: UnsafeRawBufferPointer, text: UnsafeRawBufferPointer, alphabet: Alphabet) -> Bool {
        guard text.count == encodedLength(bytes.count, alphabet) else { return false }
        var differ: UInt8 = 0
        forEachSymbol(of: bytes, alphabet: alphabet) { position, symbol in differ |= text[position] ^ symbol }
        return differ == 0
    }

    /// Encodes bytes; `.url` omits padding as JWS requires.
    public static func encode<D: DataProtocol>(_ data: D, alphabet: Alphabet) -> String {
        let bytes = [UInt8](data)
        let length = encodedLength(bytes.count, alphabet)
        return String(unsafeUninitializedCapacity: length) { output in
            bytes.withUnsafeBytes { input in
                forEachSymbol(of: input, alphabet: alphabet) { position, symbol in output[position] = symbol }
            }
            return length
        }
    }

    /// The length of the text `encode` makes of `count` bytes.
    private static func encodedLength(_ count: Int, _ alphabet: Alphabet) -> Int {
        let rest = count % 3
        return count / 3 * 4 + (rest == 0 ? 0 : alphabet == .standard ? 4 : rest + 1)
    }

    /// Each symbol of the encoding of `input`, padding included, with its position: the one loop
    /// behind `encode` and `isEncoding`.
    @inline(__always)
    private static func forEachSymbol(
        of input: UnsafeRawBufferPointer, alphabet: Alphabet, _ body: (Int, UInt8) -> Void
    ) {
        let symbols = alphabet == .standard ? standardSymbols : urlSymbols
        let rest = input.count % 3
        symbols.withUnsafeBufferPointer { symbols in
            var index = 0
            var written = 0
            while index + 3 <= input.count {
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                body(written, symbols[Int(chunk >> 18 & 63)])
                body(written + 1, symbols[Int(chunk >> 12 & 63)])
                body(written + 2, symbols[Int(chunk >> 6 & 63)])
                body(written + 3, symbols[Int(chunk & 63)])
                index += 3
                written += 4
            }
            guard rest > 0 else { return }
            var chunk = UInt32(input[index]) << 16
            if rest == 2 { chunk |= UInt32(input[index + 1]) << 8 }
            body(written, symbols[Int(chunk >> 18 & 63)])
            body(written + 1, symbols[Int(chunk >> 12 & 63)])
            written += 2
            if rest == 2 {
                body(written, symbols[Int(chunk >> 6 & 63)])
                written += 1
            }
            if alphabet == .standard {
                while written % 4 != 0 {
                    body(written, UInt8(ascii: "="))
                    written += 1
                }
            }
        }
    }
}
