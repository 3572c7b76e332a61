import Foundation

/// A type that reads itself from parsed JSON, exactly as its `Decodable` conformance would: the
/// same required members, the same types and number rules (`JSONValueDecoder`'s), `null` as
/// absent for optionals, unknown members ignored.
///
/// For the models read back on every notification (stored states, journals, facts, Apple's
/// payloads), where the generic `Decodable` path costs much more a document.
/// `JSONValueDecoder` uses the conformance wherever the type appears; each conformance has a test
/// that holds it equal to `JSONDecoder`, with each field left out and given a wrong type.
public protocol JSONValueReadable: Decodable {
    init(json: JSONValue) throws
}

/// The members of a JSON object, read with `JSONValueDecoder`'s rules.
public struct JSONFields {
    private let members: [String: JSONValue]
    private let type: Any.Type

    /// The members of `value`, which must be an object; `type` names what is being read in errors.
    public init(_ value: JSONValue, of type: Any.Type) throws {
        guard case .object(let members) = value else {
            throw mismatch(type, value, [])
        }
        self.members = members
        self.type = type
    }

    // MARK: - Required

    /// The member `key`; throws `keyNotFound` when it is missing.
    public func value(_ key: String) throws -> JSONValue {
        guard let value = members[key] else {
            throw DecodingError.keyNotFound(
                PathKey(stringValue: key),
                DecodingError.Context(codingPath: [], debugDescription: "No value for key \(key) in \(type)."))
        }
        return value
    }

    public func string(_ key: String) throws -> String { try readString(value(key), key) }
    public func int64(_ key: String) throws -> Int64 { try readInteger(value(key), Int64.self, key) }
    public func int(_ key: String) throws -> Int { try readInteger(value(key), Int.self, key) }
    public func bool(_ key: String) throws -> Bool { try readBool(value(key), key) }
    public func strings(_ key: String) throws -> [String] { try readStrings(value(key), key) }

    /// A member that is an object whose members are read by `read`.
    public func object<Value>(_ key: String, _ read: (JSONValue) throws -> Value) throws -> [String: Value] {
        guard case .object(let members) = try value(key) else {
            throw mismatch([String: Value].self, try value(key), path(key))
        }
        return try members.mapValues(read)
    }

    /// A member that is an array whose elements are read by `read`.
    public func array<Element>(_ key: String, _ read: (JSONValue) throws -> Element) throws -> [Element] {
        guard case .array(let elements) = try value(key) else {
            throw mismatch([Element].self, try value(key), path(key))
        }
        return try elements.map(read)
    }

    // MARK: - Optional: nil when missing or null

    public func present(_ key: String) -> JSONValue? {
        guard let value = members[key] else { return nil }
        if case .null = value { return nil }
        return value
    }

    public func optionalString(_ key: String) throws -> String? { try present(key).map { try readString($0, key) } }
    public func optionalInt64(_ key: String) throws -> Int64? {
        try present(key).map { try readInteger($0, Int64.self, key) }
    }
    public func optionalInt32(_ key: String) throws -> Int32? {
        try present(key).map { try readInteger($0, Int32.self, key) }
    }
    public func optionalInt(_ key: String) throws -> Int? { try present(key).map { try readInteger($0, Int.self, key) } }
    public func optionalBool(_ key: String) throws -> Bool? { try present(key).map { try readBool($0, key) } }
    public func optionalStrings(_ key: String) throws -> [String]? { try present(key).map { try readStrings($0, key) } }

    /// A `Decimal` member, from the number's shortest decimal text, as `JSONValueDecoder` reads one.
    public func optionalDecimal(_ key: String) throws -> Decimal? {
        try present(key).map { try JSONValueDecoder().decode(Decimal.self, from: $0) }
    }

    /// A closed enum member with a string raw value; a value outside it throws, as `Decodable` does.
    public func optional<E: RawRepresentable & Decodable>(_ key: String, _ type: E.Type) throws -> E?
    where E.RawValue == String {
        try present(key).map { try readClosed(E.self, $0, key) }
    }

    public func closed<E: RawRepresentable & Decodable>(_ key: String, _ type: E.Type) throws -> E where E.RawValue == String {
        try readClosed(E.self, value(key), key)
    }

    /// A member of any `Decodable` type, through `JSONValueDecoder` (for rarely present nested types).
    public func optionalDecoded<T: Decodable>(_ key: String, _ type: T.Type) throws -> T? {
        try present(key).map { try JSONValueDecoder().decode(T.self, from: $0) }
    }

    // MARK: - Scalars

    private func readString(_ value: JSONValue, _ key: String) throws -> String {
        try Scalar.string(value, path(key))
    }

    private func readBool(_ value: JSONValue, _ key: String) throws -> Bool {
        try Scalar.bool(value, path(key))
    }

    package func readInteger<T: FixedWidthInteger>(_ value: JSONValue, _ type: T.Type, _ key: String) throws -> T {
        try Scalar.integer(value, type, path(key))
    }

    private func readStrings(_ value: JSONValue, _ key: String) throws -> [String] {
        guard case .array(let elements) = value else {
            throw mismatch([String].self, value, path(key))
        }
        return try elements.map { try readString($0, key) }
    }

    private func readClosed<E: RawRepresentable>(_ type: E.Type, _ value: JSONValue, _ key: String) throws -> E
    where E.RawValue == String {
        guard let known = E(rawValue: try readString(value, key)) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: path(key), debugDescription: "Cannot initialize \(E.self) from \(value).")
            )
        }
        return known
    }

    /// `key` named with the type being read (`JWSTransactionDecodedPayload.price`): errors carry
    /// no enclosing coding path, so this is what a reject reason shows.
    package func path(_ key: String) -> [any CodingKey] { [PathKey(stringValue: "\(type).\(key)")] }
}
