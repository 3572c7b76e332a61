/// SHA-1 (FIPS 180-4) of a short input, for name-based UUIDs (RFC 9562 version 5) only: event ids
/// are derived, not secret, and SHA-1 is what version 5 is defined with. Never for security.
///
/// In Swift rather than through OpenSSL: the storage writer makes two or three event ids per
/// notification, and `EVP_Digest` (a context allocated, initialised and freed per call) costs
/// far more than hashing inputs of about 60 bytes. Tests compare it with OpenSSL's.
enum SHA1 {
    /// The 20-byte digest of `input`.
    static func hash(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        let fullBlocks = input.count / 64
        for block in 0..<fullBlocks {
            compress(&state, UnsafeRawBufferPointer(rebasing: input[(block * 64)..<(block * 64 + 64)]))
        }
        // The rest, a 1 bit, zeros, and the length in bits (big-endian): one block or two.
        let rest = input.count - fullBlocks * 64
        let tailCount = rest < 56 ? 64 : 128
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
            tail.initializeMemory(as: UInt8.self, repeating: 0)
            if rest > 0 {
                tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[(fullBlocks * 64)...]))
            }
            tail[rest] = 0x80
            let bits = UInt64(input.count) &* 8
            for index in 0..<8 {
                tail[tailCount - 1 - index] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index)))
            }
            for start in stride(from: 0, to: tailCount, by: 64) {
                compress(&state, UnsafeRawBufferPointer(rebasing: tail[start..<(start + 64)]))
            }
        }
        var digest = [UInt8](repeating: 0, count: 20)
        for (index, word) in [state.0, state.1, state.2, state.3, state.4].enumerated() {
            digest[4 * index] = UInt8(truncatingIfNeeded: word >> 24)
            digest[4 * index + 1] = UInt8(truncatingIfNeeded: word >> 16)
            digest[4 * index + 2] = UInt8(truncatingIfNeeded: word >> 8)
            digest[4 * index + 3] = UInt8(truncatingIfNeeded: word)
        }
        return digest
    }

    /// The digest of `bytes`.
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// Folds one 64-byte block into `state`.
    private static func compress(_ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32), _ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { words in
            for index in 0..<16 {
                words[index] =
                    UInt32(block[4 * index]) << 24 | UInt32(block[4 * index + 1]) << 16 | UInt32(block[4 * index + 2]) << 8
                    | UInt32(block[4 * index + 3])
            }
            for index in 16..<80 {
                words[index] = rotate(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
            }
            var (a, b, c, d, e) = state
            for index in 0..<80 {
                let mixed: UInt32
                let constant: UInt32
                switch index {
                case 0..<20:
                    mixed = (b & c) | (~b & d)
                    constant = 0x5A82_7999
                case 20..<40:
                    mixed = b ^ c ^ d
                    constant = 0x6ED9_EBA1
                case 40..<60:
                    mixed = (b & c) | (b & d) | (c & d)
                    constant = 0x8F1B_BCDC
                default:
                    mixed = b ^ c ^ d
                    constant = 0xCA62_C1D6
                }
                let next = rotate(a, 5) &+ mixed &+ e &+ constant &+ words[index]
                e = d
                d = c
                c = rotate(b, 30)
                b = a
                a = next
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }
}
