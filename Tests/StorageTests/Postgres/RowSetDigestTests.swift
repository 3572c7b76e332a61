import Foundation
import Testing

@testable import Storage

/// `migrate-db`'s check that both sides of a copy hold the same rows.
struct RowSetDigestTests {
    static let rows: [[SQLValue]] = [
        [.integer(1), .text("a"), .null],
        [.integer(2), .blob(Data([0, 1, 2])), .real(1.5)],
        [.integer(3), .text(""), .integer(-7)],
    ]

    static func digest(_ rows: [[SQLValue]]) -> RowSetDigest {
        var digest = RowSetDigest()
        for row in rows { digest.add(row) }
        return digest
    }

    @Test func theOrderRowsAreReadInDoesNotMatter() {
        let forward = Self.digest(Self.rows)
        #expect(forward.rows == 3)
        #expect(forward.hex.count == 64)
        #expect(Self.digest(Self.rows.reversed()).hex == forward.hex)
        #expect(Self.digest([Self.rows[1], Self.rows[2], Self.rows[0]]).hex == forward.hex)
    }

    @Test func anyChangeToARowChangesTheDigest() {
        let original = Self.digest(Self.rows).hex
        let changed: [[[SQLValue]]] = [
            [Self.rows[0], Self.rows[1]],  // a row missing
            Self.rows + [Self.rows[0]],  // a row twice
            [[.integer(1), .text("b"), .null], Self.rows[1], Self.rows[2]],  // one value
            [[.integer(1), .text("a"), .text("")], Self.rows[1], Self.rows[2]],  // NULL and empty text
            [[.text("1"), .text("a"), .null], Self.rows[1], Self.rows[2]],  // integer and its text
            [[.integer(1), .null, .text("a")], Self.rows[1], Self.rows[2]],  // values swapped
        ]
        for rows in changed { #expect(Self.digest(rows).hex != original) }
    }

    @Test func theSumCarriesAcrossWords() {
        // Enough rows that the low words overflow many times: the digest stays order-free.
        let many = (0..<2000).map { [SQLValue.integer(Int64($0))] }
        #expect(Self.digest(many).hex == Self.digest(many.shuffled()).hex)
        #expect(Self.digest(many).hex != Self.digest(Array(many.dropLast())).hex)
    }
}
