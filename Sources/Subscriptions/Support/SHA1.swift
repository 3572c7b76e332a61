/// SHA-1 (FIPS 180-4), only to derive name-based UUIDs (RFC 9562 version 5).
///
/// Not used for security: event ids need a stable, well-spread hash of their cause, and UUIDv5
/// is defined over SHA-1. Foundation on Linux has no digest API, hence this small version.
enum SHA1 {
    /// The 20-byte digest of `message`.
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
        )
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        var words = [UInt32](repeating: 0, count: 80)
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let offset = blockStart + index * 4
                words[index] =
                    UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16
                    | UInt32(padded[offset + 2]) << 8 | UInt32(padded[offset + 3])
            }
            for index in 16..<80 {
                words[index] = rotateLeft(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
            }
            var (a, b, c, d, e) = state
            for index in 0..<80 {
                let (mixed, constant): (UInt32, UInt32)
                switch index {
                case 0..<20: (mixed, constant) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (mixed, constant) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (mixed, constant) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (mixed, constant) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let next = rotateLeft(a, 5) &+ mixed &+ e &+ constant &+ words[index]
                (e, d, c, b, a) = (d, c, rotateLeft(b, 30), a, next)
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
        return [state.0, state.1, state.2, state.3, state.4].flatMap { word in
            [
                UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word),
            ]
        }
    }

    private static func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
