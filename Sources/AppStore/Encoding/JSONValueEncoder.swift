import Foundation

/// Encodes `Encodable` values into `JSONValue`, then to JSON text with sorted keys.
///
/// State documents are written once per stored notification on the single storage writer, where
/// `JSONEncoder`'s generic machinery on Linux costs more than the SQL around it. Output follows
/// `JSONEncoder` with `.sortedKeys` and default strategies: nil optionals are omitted (as the
/// synthesized `encodeIfPresent` does), integers stay integers, keys sort by UTF-8 bytes.
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// The value as a `JSONValue` tree.
    public func encodeValue(_ value: some Encodable) throws -> JSONValue {
        let root = EncodingBox()
        try value.encode(to: ValueEncoder(box: root, key: nil))
        return root.resolved
    }

    /// The value as compact JSON text with sorted keys.
    public func encode(_ value: some Encodable) throws -> String {
        try encodeValue(value).serialized()
    }
}

/// A mutable slot in the tree being built: containers write into their parent's box.
private final class EncodingBox {
    var value: JSONValue = .null
    var members: [String: EncodingBox]?
    var elements: [EncodingBox]?

    /// The finished value of this slot.
    var resolved: JSONValue {
        if let members { return .object(members.mapValues(\.resolved)) }
        if let elements { return .array(elements.map(\.resolved)) }
        return value
    }
}

private struct ValueEncoder: Encoder {
    let box: EncodingBox
    let key: (any CodingKey)?
    var codingPath: [any CodingKey] { key.map { [$0] } ?? [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if box.members == nil { box.members = [:] }
        return KeyedEncodingContainer(KeyedContainer<Key>(box: box))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if box.elements == nil { box.elements = [] }
        return UnkeyedContainer(box: box)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(box: box) }
}

/// Scalars as `JSONValue`; anything else is encoded into a fresh box.
private enum Scalars {
    static func value(of value: some Encodable) throws -> EncodingBox {
        let box = EncodingBox()
        if let scalar = scalar(value) {
            box.value = scalar
        } else {
            try value.encode(to: ValueEncoder(box: box, key: nil))
        }
        return box
    }

    /// The JSON value of a string, boolean or number of any width, or nil for anything else.
    ///
    /// Every integer and floating-point type must be caught here: the standard library encodes
    /// them through `singleValueContainer().encode(_:)`, which lands back in this function.
    static func scalar(_ value: some Encodable) -> JSONValue? {
        switch value {
        case let string as String: return .string(string)
        case let flag as Bool: return .bool(flag)
        case let integer as any BinaryInteger:
            if let exact = Int64(exactly: integer) { return .integer(exact) }
            return .number(Double(integer))
        case let number as Double: return .number(number)
        case let number as Float: return .number(Double(number))
        default: return nil
        }
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodingBox
    var codingPath: [any CodingKey] { [] }

    private func set(_ value: JSONValue, _ key: Key) {
        let slot = EncodingBox()
        slot.value = value
        box.members![key.stringValue] = slot
    }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.number(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.members![key.stringValue] = try Scalars.value(of: value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingBox()
        child.members = [:]
        box.members![key.stringValue] = child
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingBox()
        child.elements = []
        box.members![key.stringValue] = child
        return UnkeyedContainer(box: child)
    }

    mutating func superEncoder() -> any Encoder {
        let child = EncodingBox()
        box.members!["super"] = child
        return ValueEncoder(box: child, key: nil)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = EncodingBox()
        box.members![key.stringValue] = child
        return ValueEncoder(box: child, key: key)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let box: EncodingBox
    var codingPath: [any CodingKey] { [] }
    var count: Int { box.elements!.count }

    private func append(_ value: JSONValue) {
        let slot = EncodingBox()
        slot.value = value
        box.elements!.append(slot)
    }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: Int64) throws { append(.integer(value)) }
    mutating func encode(_ value: Int) throws { append(.integer(Int64(value))) }
    mutating func encode(_ value: Double) throws { append(.number(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { box.elements!.append(try Scalars.value(of: value)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingBox()
        child.members = [:]
        box.elements!.append(child)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = EncodingBox()
        child.elements = []
        box.elements!.append(child)
        return UnkeyedContainer(box: child)
    }

    mutating func superEncoder() -> any Encoder {
        let child = EncodingBox()
        box.elements!.append(child)
        return ValueEncoder(box: child, key: nil)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let box: EncodingBox
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { box.value = .null }
    mutating func encode(_ value: String) throws { box.value = .string(value) }
    mutating func encode(_ value: Bool) throws { box.value = .bool(value) }
    mutating func encode(_ value: Int64) throws { box.value = .integer(value) }
    mutating func encode(_ value: Int32) throws { box.value = .integer(Int64(value)) }
    mutating func encode(_ value: Int) throws { box.value = .integer(Int64(value)) }
    mutating func encode(_ value: Double) throws { box.value = .number(value) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if let scalar = Scalars.scalar(value) {
            box.value = scalar
            return
        }
        try value.encode(to: ValueEncoder(box: box, key: nil))
    }
}
