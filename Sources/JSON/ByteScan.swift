/// The byte scan shared by the JSON parser and writer, 16 bytes at a time.
package enum ByteScan {
    /// The plain run of a JSON string from `from` on: `end` is the index of the first byte a
    /// string cannot hold as it is (a quote, a backslash or a control character), or
    /// `bytes.count`; `ascii` tells whether every byte before it is ASCII.
    @inline(__always)
    package static func plainRun(in bytes: UnsafeRawBufferPointer, from: Int) -> (end: Int, ascii: Bool) {
        var index = from
        // The bytes seen, OR-ed: no high bit means ASCII.
        var seen = SIMD16<UInt8>(repeating: 0)
        if let base = bytes.baseAddress {
            while index + 16 <= bytes.count {
                let chunk = base.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
                if anySet(stringSpecials(chunk)) { break }
                seen |= chunk
                index += 16
            }
        }
        var ascii = !hasHighBit(seen)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        return (index, ascii)
    }

    /// The lanes holding a quote, a backslash or a control character.
    @inline(__always)
    private static func stringSpecials(_ chunk: SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>> {
        (chunk .== SIMD16(repeating: UInt8(ascii: "\""))) .| (chunk .== SIMD16(repeating: UInt8(ascii: "\\")))
            .| (chunk .< SIMD16(repeating: 0x20))
    }

    /// Whether any lane of `mask` is set. The standard `any(_:)` reduces the lanes through a
    /// generic `min()` that is not specialized here: a call per 16 bytes scanned.
    @inline(__always)
    private static func anySet(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }

    /// Whether any byte OR-ed into `seen` has its high bit set (is not ASCII).
    @inline(__always)
    private static func hasHighBit(_ seen: SIMD16<UInt8>) -> Bool {
        let words = unsafeBitCast(seen, to: SIMD2<UInt64>.self)
        return (words[0] | words[1]) & 0x8080_8080_8080_8080 != 0
    }
}
