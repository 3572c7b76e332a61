import Testing

@testable import LoopbackClient

/// The numbers a response carries are digits only and fit in `Int`, or they are nil: never a
/// trap, never a sign, space, exponent or fraction taken as part of a count.
@Suite struct HTTPNumberTests {
    @Test(
        arguments: [
            ("0", 0), ("12", 12), ("0012", 12), ("9223372036854775807", Int.max),
            ("9223372036854775808", nil), ("18446744073709551616", nil), ("99999999999999999999999999", nil),
            ("-1", nil), ("-9223372036854775808", nil), ("+12", nil), ("1e19", nil), ("1.5", nil), ("NaN", nil),
            ("inf", nil), (" 12", nil), ("12 ", nil), ("", nil), ("0x10", nil), ("١٢", nil),
        ] as [(String, Int?)])
    func decimal(text: String, value: Int?) {
        #expect(HTTPNumber.decimal(Array(text.utf8)) == value)
    }

    @Test(
        arguments: [
            ("0", 0), ("a", 10), ("FF", 255), ("7fffffffffffffff", Int.max), ("8000000000000000", nil),
            ("ffffffffffffffff", nil), ("ffffffffffffffffff", nil), ("-5", nil), ("+5", nil), ("0x10", nil), ("g", nil),
            ("", nil),
        ] as [(String, Int?)])
    func hexadecimal(text: String, value: Int?) {
        #expect(HTTPNumber.hexadecimal(Array(text.utf8)) == value)
    }

    /// A field sent twice arrives joined with ", ": the same count repeated is that count
    /// (RFC 9112 §6.3), differing counts are no count.
    @Test(
        arguments: [
            ("12", 12), (" 12 ", 12), ("5, 5", 5), ("5,5", 5), ("5, 6", nil), ("5,", nil), (",", nil), ("", nil),
            ("9223372036854775807", Int.max), ("9223372036854775808", nil), ("-1", nil), ("1e19", nil),
        ] as [(String, Int?)])
    func contentLength(field: String, value: Int?) {
        #expect(HTTPNumber.contentLength(field) == value)
    }

    /// Status codes are three digits from 100 to 599; anything else in their place is no status.
    @Test(
        arguments: [
            ("HTTP/1.1 200 OK", 200), ("HTTP/1.1 200", 200), ("HTTP/1.0 599 x", 599), ("HTTP/1.1 100 Continue", 100),
            ("HTTP/1.1 099 x", nil), ("HTTP/1.1 600 x", nil), ("HTTP/1.1 000 x", nil), ("HTTP/1.1 -20 x", nil),
            ("HTTP/1.1 +20 x", nil), ("HTTP/1.1 1e3 x", nil), ("HTTP/1.1 NaN x", nil), ("HTTP/1.1 2000 OK", nil),
            ("HTTP/1.1 20 OK", nil), ("HTTP/1.1 9223372036854775807 OK", nil), ("HTTP/1.1 -9223372036854775808 OK", nil),
            ("HTTP/1.1 2.5 OK", nil), ("HTTP/1.x 200 OK", nil), ("HTTP/2 200 OK", nil), ("HTTP/1.1  200 OK", nil), ("", nil),
        ] as [(String, Int?)])
    func status(line: String, status: Int?) {
        #expect(ResponseReader.status(Array(line.utf8)) == status)
    }
}
