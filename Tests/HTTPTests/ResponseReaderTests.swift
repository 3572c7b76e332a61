import Testing

@testable import LoopbackClient

/// Header values lose HTTP's optional whitespace (spaces and tabs) and nothing else.
@Suite struct ResponseReaderTests {
    @Test(arguments: [
        ("  a b \t", "a b"), ("\t\t", ""), ("", ""), ("x", "x"), ("\u{00A0}x\u{00A0}", "\u{00A0}x\u{00A0}"),
        (" chunked ", "chunked"),
    ])
    func trimsSpacesAndTabsOnly(raw: String, trimmed: String) {
        let bytes = ArraySlice(Array(raw.utf8))
        #expect(String(decoding: ResponseReader.trimmingWhitespace(bytes), as: UTF8.self) == trimmed)
    }
}
