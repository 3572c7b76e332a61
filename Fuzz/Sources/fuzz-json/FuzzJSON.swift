import AppStore
import Foundation
import FuzzSupport
import JSON

/// The JSON parser (`JSONValue(parsing:)`) and the decoding of Apple's payloads from it.
///
/// Beyond not crashing: the parser without repeated names accepts a subset of what the plain one
/// does, and agrees with it there; what is parsed writes back as JSON that parses to the same
/// text again; a payload `JSONValueDecoder` decodes equals the one `JSONDecoder` decodes, when
/// both do and no name is repeated (`JSONDecoder` keeps a repeated member's first value, this
/// parser its last), and encodes back to an equal value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzJSON.test(Data(UnsafeRawBufferPointer(fuzzInput: data, count: size)))
    return 0
}

@main
enum FuzzJSON {
    static func main() { FuzzDriver.main(fuzzOneInput) }

    static func test(_ data: Data) {
        let strict = try? JSONValue(parsingWithoutRepeatedNames: data)
        guard let value = try? JSONValue(parsing: data) else {
            precondition(strict == nil, "the parser refusing repeated names accepted what the other refused")
            return
        }
        if let strict { precondition(strict == value, "the two parsers disagree") }

        // Written back, the value parses again and writes the same text (not infinite numbers
        // are written as null, so the first text may differ from the value).
        let text = value.serialized()
        guard let again = try? JSONValue(parsing: Data(text.utf8)) else { fatalError("serialized() wrote invalid JSON: \(text)") }
        precondition(again.serialized() == text, "serialized() is not stable")
        guard let pretty = try? JSONValue(parsing: Data(value.serialized(pretty: true).utf8)) else {
            fatalError("serialized(pretty:) wrote invalid JSON")
        }
        precondition(pretty.serialized() == text, "pretty and compact text differ")

        let comparable = strict != nil
        check(ResponseBodyV2DecodedPayload.self, value, data, againstFoundation: comparable)
        check(JWSTransactionDecodedPayload.self, value, data, againstFoundation: comparable)
        check(JWSRenewalInfoDecodedPayload.self, value, data, againstFoundation: comparable)
        check(AppTransaction.self, value, data, againstFoundation: comparable)
    }

    private static let decoder = JSONValueDecoder()

    /// Decodes a `P` both ways; what both decode must agree, and survive an encoding round trip.
    private static func check<P: Codable & Equatable>(
        _ type: P.Type, _ value: JSONValue, _ data: Data, againstFoundation: Bool
    ) {
        guard let decoded = try? decoder.decode(P.self, from: value) else { return }
        if againstFoundation, let foundation = try? JSONDecoder().decode(P.self, from: data) {
            precondition(foundation == decoded, "JSONValueDecoder and JSONDecoder disagree:\n\(decoded)\n\(foundation)")
        }
        guard let encoded = try? JSONEncoder().encode(decoded) else { fatalError("\(P.self) does not encode") }
        guard let back = try? decoder.decode(P.self, from: encoded) else {
            fatalError("\(P.self) does not decode from its own encoding: \(String(decoding: encoded, as: UTF8.self))")
        }
        precondition(back == decoded, "\(P.self) changes through an encoding round trip:\n\(decoded)\n\(back)")
    }
}
