import Foundation

/// Decodes `Decodable` types from JSON parsed by `JSONParser`.
///
/// Verification decodes three payloads per notification, and on Linux `JSONDecoder` spends
/// more time on that than the ES256 check it guards. This decoder follows `JSONDecoder`'s
/// default rules (integers must fit exactly, null is absent for `decodeIfPresent`, a missing
/// key throws `keyNotFound`) and builds coding paths only when it reports an error.
public struct JSONValueDecoder: Sendable {
    public init() {}

    /// Parses `data` and decodes a `T` from it.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, from: try JSONValue(parsing: data))
    }

    /// Decodes a `T` from an already parsed value.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        if let direct = try Scalar.direct(type, value, []) { return direct }
        return try decodeValue(type, value, path: nil)
    }
}

/// A non-scalar value: through its `JSONValueReadable` conformance when it has one, else `Decodable`.
private func decodeValue<T: Decodable>(_ type: T.Type, _ value: JSONValue, path: PathNode?) throws -> T {
    if let readable = T.self as? any JSONValueReadable.Type {
        return try readable.init(json: value) as! T
    }
    return try T(from: ValueDecoder(value: value, path: path))
}

/// A coding path as a linked list, materialized only for error messages.
private final class PathNode: Sendable {
    package let parent: PathNode?
    package let key: PathKey

    package init(parent: PathNode?, key: PathKey) {
        self.parent = parent
        self.key = key
    }

    package static func path(_ node: PathNode?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var current = node
        while let node = current {
            keys.append(node.key)
            current = node.parent
        }
        return keys.reversed()
    }
}

package struct PathKey: CodingKey, Sendable {
    package var stringValue: String
    package var intValue: Int?
    package init(stringValue: String) { self.stringValue = stringValue }
    package init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
    package init(_ key: any CodingKey) {
        stringValue = key.stringValue
        intValue = key.intValue
    }
}

package func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    let found =
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    return DecodingError.typeMismatch(
        type, DecodingError.Context(codingPath: path, debugDescription: "Expected \(type) but found \(found) instead."))
}

/// Reads scalars out of a `JSONValue` with `JSONDecoder`'s rules; `path` is built on failure only.
/// `JSONFields` reads its members with these too.
package enum Scalar {
    @inline(__always)
    package static func string(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, path()) }
        return string
    }

    @inline(__always)
    package static func bool(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, path()) }
        return bool
    }

    package static func double(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch value {
        case .integer(let integer): return Double(integer)
        case .number(let number): return number
        default: throw mismatch(Double.self, value, path())
        }
    }

    package static func integer<T: FixedWidthInteger>(
        _ value: JSONValue, _ type: T.Type, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        let exact: T?
        switch value {
        case .integer(let integer): exact = T(exactly: integer)
        case .number(let number): exact = T(exactly: number)
        default: throw mismatch(T.self, value, path())
        }
        guard let exact else {
            // A fraction is no integer at any width: said so, rather than that it does not fit.
            var fraction = false
            if case .number(let number) = value, number.isFinite { fraction = number != number.rounded(.towardZero) }
            let why = fraction ? "Number is not a whole number." : "Number does not fit in \(T.self)."
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path(), debugDescription: why))
        }
        return exact
    }
}

extension Scalar {
    /// A string, boolean or number of any width decoded directly, or nil for other types.
    ///
    /// Every integer and floating-point type must be caught here: the standard library decodes
    /// them through `singleValueContainer().decode(_:)`, which would land back in `T(from:)`.
    package static func direct<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: @autoclosure () -> [any CodingKey])
        throws -> T?
    {
        if T.self == String.self { return try string(value, path()) as? T }
        if T.self == Bool.self { return try bool(value, path()) as? T }
        if T.self == Double.self { return try double(value, path()) as? T }
        if T.self == Float.self { return Float(try double(value, path())) as? T }
        if T.self == Decimal.self { return try decimal(value, path()) as? T }
        if T.self == Int.self { return try integer(value, Int.self, path()) as? T }
        if T.self == Int64.self { return try integer(value, Int64.self, path()) as? T }
        if T.self == Int32.self { return try integer(value, Int32.self, path()) as? T }
        // Other widths: a metatype test first, since a failed cast searches the conformance tables.
        guard
            T.self == Int8.self || T.self == Int16.self || T.self == UInt.self || T.self == UInt8.self
                || T.self == UInt16.self || T.self == UInt32.self || T.self == UInt64.self
        else { return nil }
        if let integerType = T.self as? any FixedWidthInteger.Type {
            return try openInteger(integerType, value, path()) as? T
        }
        return nil
    }

    /// A JSON number as a `Decimal`, from its shortest decimal text (no binary rounding noise).
    private static func decimal(_ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]) throws -> Decimal {
        switch value {
        case .integer(let integer): return Decimal(integer)
        case .number(let number):
            guard let decimal = Decimal(string: "\(number)", locale: Locale(identifier: "en_US_POSIX")) else {
                throw mismatch(Decimal.self, value, path())
            }
            return decimal
        default: throw mismatch(Decimal.self, value, path())
        }
    }

    private static func openInteger<I: FixedWidthInteger>(
        _ type: I.Type, _ value: JSONValue, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> I {
        try integer(value, type, path())
    }
}

private struct ValueDecoder: Decoder {
    package let value: JSONValue
    package let path: PathNode?
    package var codingPath: [any CodingKey] { PathNode.path(path) }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, path: path))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([Any].self, value, codingPath) }
        return UnkeyedContainer(elements: elements, path: path)
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(value: value, path: path) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    package let members: [String: JSONValue]
    package let path: PathNode?
    package var codingPath: [any CodingKey] { PathNode.path(path) }

    package var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    package func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func keyPath(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    private func child(_ key: Key) -> PathNode { PathNode(parent: path, key: PathKey(key)) }

    private func value(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, DecodingError.Context(codingPath: codingPath, debugDescription: "No value for key \(key.stringValue)."))
        }
        return value
    }

    @inline(__always)
    private func present(_ key: Key) -> JSONValue? {
        guard let value = members[key.stringValue] else { return nil }
        if case .null = value { return nil }
        return value
    }

    package func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }

    package func decode(_ type: String.Type, forKey key: Key) throws -> String { try Scalar.string(try value(key), keyPath(key)) }
    package func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Scalar.bool(try value(key), keyPath(key)) }
    package func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try Scalar.integer(try value(key), type, keyPath(key))
    }
    package func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try Scalar.integer(try value(key), type, keyPath(key))
    }
    package func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try Scalar.integer(try value(key), type, keyPath(key))
    }
    package func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Scalar.double(try value(key), keyPath(key)) }
    package func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let value = try value(key)
        if let direct = try Scalar.direct(type, value, keyPath(key)) { return direct }
        return try decodeValue(T.self, value, path: child(key))
    }

    package func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = present(key) else { return nil }
        return try Scalar.string(value, keyPath(key))
    }
    package func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = present(key) else { return nil }
        return try Scalar.bool(value, keyPath(key))
    }
    package func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let value = present(key) else { return nil }
        return try Scalar.integer(value, type, keyPath(key))
    }
    package func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        guard let value = present(key) else { return nil }
        return try Scalar.integer(value, type, keyPath(key))
    }
    package func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let value = present(key) else { return nil }
        return try Scalar.integer(value, type, keyPath(key))
    }
    package func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = present(key) else { return nil }
        return try Scalar.double(value, keyPath(key))
    }
    package func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = present(key) else { return nil }
        if let direct = try Scalar.direct(type, value, keyPath(key)) { return direct }
        return try decodeValue(T.self, value, path: child(key))
    }

    package func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try value(key), path: child(key)).container(keyedBy: type)
    }

    package func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try value(key), path: child(key)).unkeyedContainer()
    }

    package func superDecoder() throws -> any Decoder {
        ValueDecoder(value: members["super"] ?? .null, path: PathNode(parent: path, key: PathKey(stringValue: "super")))
    }

    package func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members[key.stringValue] ?? .null, path: child(key))
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    package let elements: [JSONValue]
    package let path: PathNode?
    package var currentIndex = 0
    package var codingPath: [any CodingKey] { PathNode.path(path) }

    package init(elements: [JSONValue], path: PathNode?) {
        self.elements = elements
        self.path = path
    }

    package var count: Int? { elements.count }
    package var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, DecodingError.Context(codingPath: codingPath, debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: elements[currentIndex], path: PathNode(parent: path, key: PathKey(intValue: currentIndex)))
    }

    package mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    package mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                T.self, DecodingError.Context(codingPath: codingPath, debugDescription: "Unkeyed container is at end."))
        }
        let element = elements[currentIndex]
        let elementPath = PathNode(parent: path, key: PathKey(intValue: currentIndex))
        let decoded =
            try Scalar.direct(type, element, PathNode.path(elementPath))
            ?? decodeValue(T.self, element, path: elementPath)
        currentIndex += 1
        return decoded
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try next().container(keyedBy: type)
    }

    package mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    package mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleContainer: SingleValueDecodingContainer {
    package let value: JSONValue
    package let path: PathNode?
    package var codingPath: [any CodingKey] { PathNode.path(path) }

    package func decodeNil() -> Bool { value == .null }
    package func decode(_ type: String.Type) throws -> String { try Scalar.string(value, codingPath) }
    package func decode(_ type: Bool.Type) throws -> Bool { try Scalar.bool(value, codingPath) }
    package func decode(_ type: Int64.Type) throws -> Int64 { try Scalar.integer(value, type, codingPath) }
    package func decode(_ type: Int32.Type) throws -> Int32 { try Scalar.integer(value, type, codingPath) }
    package func decode(_ type: Int.Type) throws -> Int { try Scalar.integer(value, type, codingPath) }
    package func decode(_ type: Double.Type) throws -> Double { try Scalar.double(value, codingPath) }
    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let direct = try Scalar.direct(type, value, codingPath) { return direct }
        return try decodeValue(T.self, value, path: path)
    }
}
