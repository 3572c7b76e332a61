/// The syntax of a header field (RFC 9110, section 5), checked on the bytes libmicrohttpd hands
/// over: it splits a line at its first colon, keeps a bare CR inside a value, and leaves what is
/// around the colon in the name, so what it accepts is checked again here.
enum HeaderFieldSyntax {
    /// Whether `name` is a token (RFC 9110, section 5.6.2): letters, digits and
    /// ``!#$%&'*+-.^_`|~``, at least one. Whitespace before the colon (`Transfer-Encoding :`)
    /// leaves a name that is not one; RFC 9112, section 5.1, has a server answer that 400, since
    /// a proxy that trims it would read the field the server ignores.
    static func isValidName(_ name: some Sequence<UInt8>) -> Bool {
        var empty = true
        for byte in name {
            guard isTokenCharacter(byte) else { return false }
            empty = false
        }
        return !empty
    }

    /// Whether `value` is a field value (RFC 9110, section 5.5): visible characters, spaces,
    /// tabs and bytes of 0x80 and up, but no other control character. A bare CR is one: some
    /// parsers end the line there, and would read what follows as another field.
    static func isValidValue(_ value: some Sequence<UInt8>) -> Bool {
        value.allSatisfy { byte in byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F) }
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
