import AppStore
import Crypto
import Foundation
import Testing

@Suite("Base64")
struct Base64Tests {
    @Test func roundTripsEveryLengthInBothAlphabets() {
        for length in 0..<70 {
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) })
            for alphabet in [Base64.Alphabet.standard, .url] {
                #expect(Base64.decode(Base64.encode(bytes, alphabet: alphabet), alphabet: alphabet) == bytes)
            }
            #expect(Base64.encode(bytes, alphabet: .standard) == bytes.base64EncodedString())
        }
    }

    @Test(arguments: ["a", "ab=", "abc*", "ab-_", "YQ", "YR==", "Zm9v=", "Zm9vYg=", "Zm9v YmFy"])
    func rejectsMalformedStandard(text: String) {
        #expect(Base64.decode(text, alphabet: .standard) == nil)
    }

    @Test(arguments: ["a", "ab+", "ab/", "YR", "Zm9vYg==="])
    func rejectsMalformedURL(text: String) {
        #expect(Base64.decode(text, alphabet: .url) == nil)
    }

    @Test func endOfSymbolsStopsAtTheFirstByteOutsideTheAlphabet() {
        let text = Array("eyJ-_09.ab+/=".utf8)
        text.withUnsafeBytes { bytes in
            #expect(Base64.endOfSymbols(in: bytes, from: 0, alphabet: .url) == 7)
            #expect(Base64.endOfSymbols(in: bytes, from: 7, alphabet: .url) == 7)
            #expect(Base64.endOfSymbols(in: bytes, from: 8, alphabet: .url) == 10)
            #expect(Base64.endOfSymbols(in: bytes, from: 8, alphabet: .standard) == 12)
            #expect(Base64.endOfSymbols(in: bytes, from: 0, alphabet: .standard) == 3)
            #expect(Base64.endOfSymbols(in: bytes, from: text.count, alphabet: .url) == text.count)
        }
    }
}
