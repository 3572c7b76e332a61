/// Byte scans shared by the JSON parser and writer, 16 bytes at a time.
enum ByteScan {
    /// The first byte at or after `from` that a JSON string cannot hold as it is: a quote, a
    /// backslash or a control character; nil when there is none.
    @inline(__always)
    static func firstStringSpecial(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var index = from
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 16 <= bytes.count {
                let chunk = raw.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
                if anySet(stringSpecials(chunk)) { break }
                index += 16
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
            index += 1
        }
        return nil
    }

    /// The lanes holding a quote, a backslash or a control character.
    @inline(__always)
    static func stringSpecials(_ chunk: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> {
        (chunk .== SIMD16(repeating: UInt8(ascii: "\""))) .| (chunk .== SIMD16(repeating: UInt8(ascii: "\\")))
            .| (chunk .< SIMD16(repeating: 0x20))
    }

    /// Whether any lane of `mask` is set. The standard `any(_:)` reduces the lanes through a
    /// generic `min()` that is not specialized here: a call per 16 bytes scanned.
    @inline(__always)
    static func anySet(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }

    /// Whether any byte OR-ed into `seen` has its high bit set (is not ASCII).
    @inline(__always)
    static func hasHighBit(_ seen: SIMD16<UInt8>) -> Bool {
        let words = unsafeBitCast(seen, to: SIMD2<UInt64>.self)
        return (words[0] | words[1]) & 0x8080_8080_8080_8080 != 0
    }
}
