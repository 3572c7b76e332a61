import Foundation

/// Compact JSON written straight to bytes, for responses on hot paths that would otherwise build
/// a `JSONValue` tree only to serialize it.
///
/// The caller writes members in the order they should appear (for output that matches
/// `JSONValue.serialized()`, sorted by key); commas and string escapes are the writer's business.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Per open container: whether nothing has been written in it yet.
    private var empty: [Bool] = []
    /// A key was just written: the next value needs no comma.
    private var afterKey = false

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    private mutating func open(_ bracket: UInt8) {
        prefix()
        bytes.append(bracket)
        empty.append(true)
    }

    private mutating func close(_ bracket: UInt8) {
        empty.removeLast()
        bytes.append(bracket)
    }

    /// A member's key; its value follows.
    public mutating func key(_ key: String) {
        prefix()
        JSONValue.string(key).write(into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// A member whose value is a string, or null.
    public mutating func member(_ key: String, _ text: String?) {
        self.key(key)
        string(text)
    }

    public mutating func value(_ value: JSONValue) {
        prefix()
        value.write(into: &bytes)
    }

    /// A string, or null.
    public mutating func string(_ text: String?) {
        value(text.map(JSONValue.string) ?? .null)
    }

    public mutating func integer(_ number: Int64) {
        prefix()
        bytes.append(contentsOf: String(number).utf8)
    }

    public mutating func bool(_ flag: Bool) {
        prefix()
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
    }

    public mutating func null() {
        prefix()
        bytes.append(contentsOf: "null".utf8)
    }

    /// The comma before anything but the first element of a container or a member's value.
    fileprivate mutating func prefix() {
        if afterKey {
            afterKey = false
            return
        }
        guard !empty.isEmpty else { return }
        if empty[empty.count - 1] {
            empty[empty.count - 1] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
    }
}

// MARK: - Members left out when nil

extension JSONWriter {
    /// A member with a string value; nothing when the value is nil, as synthesized `Codable` does.
    public mutating func optional(_ key: String, _ text: String?) {
        guard let text else { return }
        member(key, text)
    }

    public mutating func optional(_ key: String, _ number: Int64?) {
        guard let number else { return }
        member(key, number)
    }

    /// A number member, as `JSONValueEncoder` writes a `Decimal`.
    public mutating func optional(_ key: String, _ number: Decimal?) {
        guard let number else { return }
        self.key(key)
        value(Scalars.decimal(number))
    }

    public mutating func optional(_ key: String, _ number: Int32?) {
        optional(key, number.map(Int64.init))
    }

    public mutating func optional(_ key: String, _ flag: Bool?) {
        guard let flag else { return }
        self.key(key)
        bool(flag)
    }

    public mutating func optional(_ key: String, _ texts: [String]?) {
        guard let texts else { return }
        array(key, texts) { writer, text in writer.string(text) }
    }

    public mutating func member(_ key: String, _ number: Int64) {
        self.key(key)
        integer(number)
    }

    /// A member that writes itself; nothing when it is nil.
    public mutating func optional(_ key: String, _ value: (some SortedJSONWritable)?) throws {
        guard let value else { return }
        self.key(key)
        try value.writeSortedJSON(into: &self)
    }

    /// An array member, each element written by `element`.
    public mutating func array<Element>(
        _ key: String, _ elements: [Element], _ element: (inout JSONWriter, Element) throws -> Void
    ) rethrows {
        self.key(key)
        beginArray()
        for value in elements { try element(&self, value) }
        endArray()
    }

    /// An object member with `members`' keys sorted by their UTF-8 bytes, each value written by `value`.
    public mutating func object<Value>(
        _ key: String, _ members: [String: Value], _ value: (inout JSONWriter, Value) throws -> Void
    ) rethrows {
        self.key(key)
        beginObject()
        for name in members.keys.sorted(by: JSONValue.precedesInUTF8) {
            self.key(name)
            try value(&self, members[name]!)
        }
        endObject()
    }

    /// A value that goes through `JSONValueEncoder` (for rarely present nested types).
    public mutating func encoded(_ value: some Encodable) throws {
        raw(Array(try JSONValueEncoder().encode(value).utf8))
    }

    /// A member whose value goes through `JSONValueEncoder`; nothing when it is nil.
    public mutating func encoded(_ key: String, _ value: (some Encodable)?) throws {
        guard let value else { return }
        self.key(key)
        try encoded(value)
    }

    /// JSON text already written elsewhere, as the next value.
    public mutating func raw(_ json: [UInt8]) {
        prefix()
        bytes.append(contentsOf: json)
    }
}
