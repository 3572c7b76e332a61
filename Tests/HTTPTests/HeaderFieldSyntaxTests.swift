import Testing

@testable import HTTP

/// The checks behind the 400s for malformed header fields, and the Content-Length reading, as
/// tables of values.
@Suite("Header field syntax")
struct HeaderFieldSyntaxTests {
    @Test(arguments: [
        ("Content-Length", true), ("X-Custom_1.2~'*", true), ("Transfer-Encoding ", false), (" Host", false),
        ("Transfer-Encoding\t", false), ("", false), ("A:B", false), ("Naïve", false), ("X\u{7F}", false),
    ])
    func names(name: String, valid: Bool) {
        #expect(HeaderFieldSyntax.isValidName(name.utf8) == valid)
    }

    @Test(arguments: [
        ("chunked", true), ("a b\tc", true), ("", true), ("caf\u{E9}", true), ("a\rb", false), ("a\r", false),
        ("a\u{0}b", false), ("a\u{1B}b", false), ("a\u{7F}", false),
    ])
    func values(value: String, valid: Bool) {
        #expect(HeaderFieldSyntax.isValidValue(value.utf8) == valid)
    }

    @Test(arguments: [
        ("0", DeclaredLength.bytes(0)), ("007", .bytes(7)), ("9223372036854775807", .bytes(Int.max)),
        ("9223372036854775808", .tooLarge), ("18446744073709551615", .tooLarge), ("99999999999999999999", .tooLarge),
        ("-1", .invalid), ("-9223372036854775808", .invalid), ("+5", .invalid), ("1e19", .invalid), ("1.5", .invalid),
        ("NaN", .invalid), ("0x10", .invalid), ("", .invalid), ("5 5", .invalid), ("\u{FF11}", .invalid),
        ("99999999999999999999x", .invalid),
    ])
    func declaredLengths(text: String, length: DeclaredLength) {
        #expect(DeclaredLength(Substring(text)) == length)
    }
}
