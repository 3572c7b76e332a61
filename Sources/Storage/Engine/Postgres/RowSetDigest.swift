import Crypto

/// A digest of a set of rows that does not depend on the order they are read in: the sum,
/// modulo 2^256, of each row's SHA-256 over its values' types, lengths and bytes. Memory stays
/// constant however many rows are added, and the two sides of a copy may list their rows in
/// different orders (a text key sorts by SQLite's byte order on one side and by the database's
/// collation on the other).
struct RowSetDigest {
    private(set) var rows = 0
    /// The sum, least significant 64 bits first.
    private var sum: [UInt64] = [0, 0, 0, 0]

    mutating func add(_ row: [SQLValue]) {
        rows += 1
        let hash = Self.hash(row)
        var carry: UInt64 = 0
        for limb in 0..<4 {
            var word: UInt64 = 0
            for byte in 0..<8 { word = word << 8 | UInt64(hash[31 - 8 * limb - byte]) }
            let (partial, overflowA) = sum[limb].addingReportingOverflow(word)
            let (total, overflowB) = partial.addingReportingOverflow(carry)
            sum[limb] = total
            carry = (overflowA ? 1 : 0) + (overflowB ? 1 : 0)
        }
    }

    /// The sum as 64 hex digits, most significant first.
    var hex: String {
        sum.reversed().map { limb in
            let digits = String(limb, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// A row's SHA-256 over each value's type tag, length and bytes.
    static func hash(_ row: [SQLValue]) -> [UInt8] {
        var bytes: [UInt8] = []
        func add(_ tag: UInt8, _ data: some Sequence<UInt8>) {
            let content = Array(data)
            bytes.append(tag)
            withUnsafeBytes(of: UInt64(content.count).bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: content)
        }
        for value in row {
            switch value {
            case .null: add(0, [])
            case .integer(let number): add(1, String(number).utf8)
            case .real(let number): add(2, "\(number)".utf8)
            case .text(let text): add(3, text.utf8)
            case .blob(let data): add(4, data)
            }
        }
        return Digest.sha256(bytes)
    }
}
