import Testing

@testable import JSON

/// Text a client chose, bounded in bytes of UTF-8 and cut only between Unicode scalars.
@Suite("UTF-8 bounds")
struct UTF8BoundsTests {
    @Test(arguments: [
        ("abcdef", 4, "abcd", "cdef"),
        ("abc", 10, "abc", "abc"),
        ("", 3, "", ""),
        // é is two bytes, € three: a scalar that does not fit whole is left out.
        ("aé€b", 3, "aé", "b"),
        ("aé€b", 4, "aé", "€b"),
        ("aé€b", 2, "a", "b"),
        ("€€", 4, "€", "€"),
        // One character of a letter and its combining accents (two bytes each) is cut inside.
        ("a\u{301}\u{301}\u{301}", 5, "a\u{301}\u{301}", "\u{301}\u{301}"),
        ("😀x", 3, "", "x"),
    ])
    func prefixAndSuffixStayWithinTheBytes(text: String, maxBytes: Int, prefix: String, suffix: String) {
        #expect(String(text.utf8Prefix(maxBytes: maxBytes)) == prefix)
        #expect(String(text.utf8Suffix(maxBytes: maxBytes)) == suffix)
        #expect(text.utf8Prefix(maxBytes: maxBytes).utf8.count <= maxBytes)
        #expect(text.utf8Suffix(maxBytes: maxBytes).utf8.count <= maxBytes)
    }
}
