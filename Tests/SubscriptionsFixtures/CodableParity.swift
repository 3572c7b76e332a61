import Foundation
import JSON
import Testing

/// Checks that a type's own JSON (`SortedJSONWritable`, `JSONValueReadable`) is what `Codable`
/// gives through Foundation's `JSONEncoder` with sorted keys, and that both decoders accept and
/// refuse the same documents.
public enum CodableParity {
    public static func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Property names whose value is nil or an empty collection.
    public static func unset(_ value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            let text = "\(child.value)"
            return text == "nil" || text == "[]" || text == "[:]" ? child.label : nil
        }
    }

    /// Compares both encoders on `full` and on `full` with each member removed (where it
    /// decodes), and both decoders on `full` with each member replaced by a value of every JSON
    /// type.
    public static func check<T: Codable>(_ full: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let members = try #require(
            try JSONValue(parsing: Data(foundation(full).utf8)).objectValue, sourceLocation: sourceLocation)
        var values = [full]
        for key in members.keys {
            var without = members
            without[key] = nil
            if let value = try? JSONDecoder().decode(T.self, from: Data(JSONValue.object(without).serialized().utf8)) {
                values.append(value)
            }
        }
        for value in values {
            #expect(try JSONValueEncoder().encode(value) == foundation(value), sourceLocation: sourceLocation)
            try expectSameDecoding(T.self, JSONValue(parsing: Data(foundation(value).utf8)), sourceLocation: sourceLocation)
        }
        for key in members.keys {
            for wrong in [JSONValue.null, .bool(true), .string("x"), .integer(1 << 40), .array([]), .object([:])] {
                var changed = members
                changed[key] = wrong
                try expectSameDecoding(T.self, .object(changed), sourceLocation: sourceLocation)
            }
        }
    }

    /// `JSONValueDecoder` (through `JSONValueReadable` where a type has it) and `JSONDecoder`
    /// agree: both fail, or both give the same value.
    public static func expectSameDecoding<T: Codable>(
        _ type: T.Type, _ json: JSONValue, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let data = Data(json.serialized().utf8)
        let ours = Result { try JSONValueDecoder().decode(T.self, from: data) }
        let theirs = Result { try JSONDecoder().decode(T.self, from: data) }
        switch (ours, theirs) {
        case (.success(let mine), .success(let foundations)):
            #expect(try foundation(mine) == foundation(foundations), "\(json.serialized())", sourceLocation: sourceLocation)
        case (.failure, .failure): break
        default:
            Issue.record(
                "decoders disagree on \(json.serialized()): ours \(ours), JSONDecoder \(theirs)", sourceLocation: sourceLocation)
        }
    }
}
