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
        try Scalars.value(of: value).resolved
    }

    /// The JSON text of a value that writes itself: what `encode(_:)` gives for any value of its
    /// type, without the encoding tree and the dynamic cast that finds the type's writer.
    public func encode(_ value: some SortedJSONWritable) throws -> String {
        var writer = JSONWriter(capacity: 2048)
        try value.writeSortedJSON(into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The value as compact JSON text with sorted keys, written straight from the encoding tree.
    public func encode(_ value: some Encodable) throws -> String {
        let root = try Scalars.value(of: value)
        // A value that writes itself (reached through a generic type) is its text as written.
        if let raw = root.raw { return String(decoding: raw, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(2048)
        root.write(into: &output)
        return String(decoding: output, as: UTF8.self)
    }
}

/// A mutable slot in the tree being built: containers write into their parent's box.
///
/// Members stay in encoding order and are sorted only when written; a key encoded twice keeps
/// its last value, as `JSONEncoder` does.
private final class EncodingBox {
    package var value: JSONValue = .null
    package var members: [(key: String, box: EncodingBox)]?
    package var elements: [EncodingBox]?
    /// JSON text a type wrote for itself (`Scalars.sortedJSON`).
    package var raw: [UInt8]?

    /// The finished value of this slot.
    package var resolved: JSONValue {
        if let raw { return (try? JSONParser.parse(Data(raw))) ?? .null }
        if let members { return .object(Dictionary(members.map { ($0.key, $0.box.resolved) }) { _, last in last }) }
        if let elements { return .array(elements.map(\.resolved)) }
        return value
    }

    /// Compact JSON text, keys sorted by their UTF-8 bytes.
    package func write(into output: inout [UInt8]) {
        if let raw {
            output.append(contentsOf: raw)
        } else if let members {
            output.append(UInt8(ascii: "{"))
            let order = members.indices.sorted { left, right in
                let (a, b) = (members[left].key, members[right].key)
                return a == b ? left < right : JSONValue.precedesInUTF8(a, b)
            }
            var first = true
            for (position, index) in order.enumerated() {
                if position + 1 < order.count, members[order[position + 1]].key == members[index].key { continue }
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                JSONValue.string(members[index].key).write(into: &output)
                output.append(UInt8(ascii: ":"))
                members[index].box.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        } else if let elements {
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        } else {
            value.write(into: &output)
        }
    }
}

private struct ValueEncoder: Encoder {
    package let box: EncodingBox
    package let key: (any CodingKey)?
    package var codingPath: [any CodingKey] { key.map { [$0] } ?? [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if box.members == nil { box.members = [] }
        return KeyedEncodingContainer(KeyedContainer<Key>(box: box))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if box.elements == nil { box.elements = [] }
        return UnkeyedContainer(box: box)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(box: box) }
}

/// Scalars as `JSONValue`; anything else is encoded into a fresh box.
package enum Scalars {
    fileprivate static func value(of value: some Encodable) throws -> EncodingBox {
        let box = EncodingBox()
        try fill(box, with: value)
        return box
    }

    /// Puts `value` in `box`: a scalar as it is, a type that writes itself as its text, anything
    /// else through its `encode(to:)`.
    fileprivate static func fill(_ box: EncodingBox, with value: some Encodable) throws {
        if let scalar = scalar(value) {
            box.value = scalar
        } else if let raw = try sortedJSON(value) {
            box.raw = raw
        } else {
            try value.encode(to: ValueEncoder(box: box, key: nil))
        }
    }

    /// The JSON text of a value that writes itself (`SortedJSONWritable`), or nil.
    package static func sortedJSON<T: Encodable>(_ value: T) throws -> [UInt8]? {
        guard let writable = value as? any SortedJSONWritable else { return nil }
        var writer = JSONWriter(capacity: 1024)
        try writable.writeSortedJSON(into: &writer)
        return writer.bytes
    }

    /// The JSON value of a string, boolean, number of any width or `Decimal`, or nil for anything else.
    ///
    /// Every integer and floating-point type must be caught here: the standard library encodes
    /// them through `singleValueContainer().encode(_:)`, which lands back in this function.
    /// Types are compared by metatype first: a failed dynamic cast to a protocol existential
    /// searches the conformance tables, and every struct, array and optional passes through here.
    package static func scalar<T: Encodable>(_ value: T) -> JSONValue? {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .integer(Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == Int64.self { return .integer(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self { return .number(unsafeBitCast(value, to: Double.self)) }
        if T.self == Int32.self { return .integer(Int64(unsafeBitCast(value, to: Int32.self))) }
        if T.self == Decimal.self { return decimal(value as! Decimal) }
        guard Self.isOtherNumber(T.self) else { return nil }
        switch value {
        case let integer as any BinaryInteger:
            if let exact = Int64(exactly: integer) { return .integer(exact) }
            return .number(Double(integer))
        case let number as Float: return .number(Double(number))
        default: return nil
        }
    }

    private static func isOtherNumber(_ type: Any.Type) -> Bool {
        type == Int8.self || type == Int16.self || type == UInt.self || type == UInt8.self || type == UInt16.self
            || type == UInt32.self || type == UInt64.self || type == Float.self
    }

    /// A `Decimal` as a JSON number, as `JSONEncoder` writes it (not its keyed internal layout).
    package static func decimal(_ value: Decimal) -> JSONValue {
        if let fraction = fraction(value) { return .number(fraction) }
        return decimalByText(value)
    }

    /// Powers of ten a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { power, _ in power * 10 }
    }

    /// `decimalByText(value)` without its text, when `value` is a fraction m / 10^k with m below
    /// 2^50 and k at most 22 (every price): m and 10^k are exact doubles, so IEEE division gives
    /// the double nearest m / 10^k, which is what parsing its decimal text gives. Those bounds
    /// also keep the double of a fraction from being a whole number. Nil for anything else, which
    /// takes the text path (whole numbers included), a much slower way to write a price.
    package static func fraction(_ value: Decimal) -> Double? {
        let exponent = value.exponent
        guard !value.isNaN, exponent < 0, exponent >= -22 else { return nil }
        // The significand is |m| with exponent 0: its double is exact below 2^53.
        let magnitude = NSDecimalNumber(decimal: value.significand).doubleValue
        let scale = exactPowersOfTen[-exponent]
        guard magnitude < 0x1p50, magnitude.truncatingRemainder(dividingBy: scale) != 0 else { return nil }
        let quotient = magnitude / scale
        return value.sign == .minus ? -quotient : quotient
    }

    /// `decimal(value)` the general way: a whole number as an integer, anything else parsed from its text.
    package static func decimalByText(_ value: Decimal) -> JSONValue {
        if let integer = Int64(exactly: NSDecimalNumber(decimal: value).doubleValue), Decimal(integer) == value {
            return .integer(integer)
        }
        return .number(Double(value.description) ?? NSDecimalNumber(decimal: value).doubleValue)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    package let box: EncodingBox
    package var codingPath: [any CodingKey] { [] }

    private func set(_ value: JSONValue, _ key: Key) {
        let slot = EncodingBox()
        slot.value = value
        box.members!.append((key.stringValue, slot))
    }

    package mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    package mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    package mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    package mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(value), key) }
    package mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    package mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    package mutating func encode(_ value: Double, forKey key: Key) throws { set(.number(value), key) }
    package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.members!.append((key.stringValue, try Scalars.value(of: value)))
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingBox()
        child.members = []
        box.members!.append((key.stringValue, child))
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child))
    }

    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingBox()
        child.elements = []
        box.members!.append((key.stringValue, child))
        return UnkeyedContainer(box: child)
    }

    package mutating func superEncoder() -> any Encoder {
        let child = EncodingBox()
        box.members!.append(("super", child))
        return ValueEncoder(box: child, key: nil)
    }

    package mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = EncodingBox()
        box.members!.append((key.stringValue, child))
        return ValueEncoder(box: child, key: key)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    package let box: EncodingBox
    package var codingPath: [any CodingKey] { [] }
    package var count: Int { box.elements!.count }

    private func append(_ value: JSONValue) {
        let slot = EncodingBox()
        slot.value = value
        box.elements!.append(slot)
    }

    package mutating func encodeNil() throws { append(.null) }
    package mutating func encode(_ value: String) throws { append(.string(value)) }
    package mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    package mutating func encode(_ value: Int64) throws { append(.integer(value)) }
    package mutating func encode(_ value: Int) throws { append(.integer(Int64(value))) }
    package mutating func encode(_ value: Double) throws { append(.number(value)) }
    package mutating func encode<T: Encodable>(_ value: T) throws { box.elements!.append(try Scalars.value(of: value)) }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let child = EncodingBox()
        child.members = []
        box.elements!.append(child)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child))
    }

    package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = EncodingBox()
        child.elements = []
        box.elements!.append(child)
        return UnkeyedContainer(box: child)
    }

    package mutating func superEncoder() -> any Encoder {
        let child = EncodingBox()
        box.elements!.append(child)
        return ValueEncoder(box: child, key: nil)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    package let box: EncodingBox
    package var codingPath: [any CodingKey] { [] }

    package mutating func encodeNil() throws { box.value = .null }
    package mutating func encode(_ value: String) throws { box.value = .string(value) }
    package mutating func encode(_ value: Bool) throws { box.value = .bool(value) }
    package mutating func encode(_ value: Int64) throws { box.value = .integer(value) }
    package mutating func encode(_ value: Int32) throws { box.value = .integer(Int64(value)) }
    package mutating func encode(_ value: Int) throws { box.value = .integer(Int64(value)) }
    package mutating func encode(_ value: Double) throws { box.value = .number(value) }
    package mutating func encode<T: Encodable>(_ value: T) throws { try Scalars.fill(box, with: value) }
}
