import Foundation

/// Compact JSON written straight to bytes, for responses on hot paths that would otherwise build
/// a `JSONValue` tree only to serialize it.
///
/// The caller writes members in the order they should appear (for output that matches
/// `JSONValue.serialized()`, sorted by key); commas and string escapes are the writer's business.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Bit `d` is set once the container open at depth `d` (the outermost is 0) holds something:
    /// the next element needs a comma. Containers nested deeper than 64 use `deeper`.
    private var nonEmpty: UInt64 = 0
    private var depth = 0
    private var deeper: [Bool] = []
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
        if depth < 64 {
            nonEmpty &= ~(1 << UInt64(depth))
        } else {
            deeper.append(false)
        }
        depth += 1
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if depth >= 64 { deeper.removeLast() }
        bytes.append(bracket)
    }

    /// A member's key; its value follows. Keys are the literals of the types that write
    /// themselves, so they are copied as they are: they must need no escape.
    public mutating func key(_ key: StaticString) {
        assert(
            key.withUTF8Buffer { name in !name.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") } },
            "JSON key \(key) needs escaping")
        prefix()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// A key that is data (a dictionary's, an identifier), escaped as a string.
    public mutating func key(text: String) {
        prefix()
        JSONValue.writeString(text, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    /// A member whose value is a string, or null.
    public mutating func member(_ key: StaticString, _ text: String?) {
        self.key(key)
        string(text)
    }

    public mutating func value(_ value: JSONValue) {
        prefix()
        value.write(into: &bytes)
    }

    /// A string, or null.
    public mutating func string(_ text: String?) {
        guard let text else { return null() }
        prefix()
        JSONValue.writeString(text, into: &bytes)
    }

    public mutating func integer(_ number: Int64) {
        prefix()
        JSONValue.writeInteger(number, into: &bytes)
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
        guard depth > 0 else { return }
        let level = depth - 1
        if level >= 64 {
            if deeper[level - 64] { bytes.append(UInt8(ascii: ",")) } else { deeper[level - 64] = true }
            return
        }
        let bit: UInt64 = 1 << UInt64(level)
        if nonEmpty & bit != 0 {
            bytes.append(UInt8(ascii: ","))
        } else {
            nonEmpty |= bit
        }
    }
}

// MARK: - Members left out when nil

extension JSONWriter {
    /// A member with a string value; nothing when the value is nil, as synthesized `Codable` does.
    public mutating func optional(_ key: StaticString, _ text: String?) {
        guard let text else { return }
        member(key, text)
    }

    public mutating func optional(_ key: StaticString, _ number: Int64?) {
        guard let number else { return }
        member(key, number)
    }

    /// A number member, as `JSONValueEncoder` writes a `Decimal`.
    public mutating func optional(_ key: StaticString, _ number: Decimal?) {
        guard let number else { return }
        self.key(key)
        value(Scalars.decimal(number))
    }

    public mutating func optional(_ key: StaticString, _ number: Int32?) {
        optional(key, number.map(Int64.init))
    }

    public mutating func optional(_ key: StaticString, _ flag: Bool?) {
        guard let flag else { return }
        self.key(key)
        bool(flag)
    }

    public mutating func optional(_ key: StaticString, _ texts: [String]?) {
        guard let texts else { return }
        array(key, texts) { writer, text in writer.string(text) }
    }

    public mutating func member(_ key: StaticString, _ number: Int64) {
        self.key(key)
        integer(number)
    }

    /// A member that writes itself; nothing when it is nil.
    public mutating func optional(_ key: StaticString, _ value: (some SortedJSONWritable)?) throws {
        guard let value else { return }
        self.key(key)
        try value.writeSortedJSON(into: &self)
    }

    /// An array member, each element written by `element`.
    ///
    /// Inlinable, like `object`, so the state types' writers get it specialized for their element
    /// types: called across modules unspecialized, each element would go through witness tables.
    @inlinable
    public mutating func array<Element>(
        _ key: StaticString, _ elements: [Element], _ element: (inout JSONWriter, Element) throws -> Void
    ) rethrows {
        self.key(key)
        try elementsOf(elements, element)
    }

    /// An array member whose key is data.
    @inlinable
    public mutating func array<Element>(
        text key: String, _ elements: [Element], _ element: (inout JSONWriter, Element) throws -> Void
    ) rethrows {
        self.key(text: key)
        try elementsOf(elements, element)
    }

    @usableFromInline
    package mutating func elementsOf<Element>(
        _ elements: [Element], _ element: (inout JSONWriter, Element) throws -> Void
    ) rethrows {
        beginArray()
        for value in elements { try element(&self, value) }
        endArray()
    }

    /// An object member with `members`' keys sorted by their UTF-8 bytes, each value written by `value`.
    ///
    /// A state's dictionaries mostly hold no member or one, which need no sort; inlinable so that
    /// the sort of the others is specialized (unspecialized, it is costly even for one key).
    @inlinable
    public mutating func object<Value>(
        _ key: StaticString, _ members: [String: Value], _ value: (inout JSONWriter, Value) throws -> Void
    ) rethrows {
        self.key(key)
        beginObject()
        if members.count == 1, let only = members.first {
            self.key(text: only.key)
            try value(&self, only.value)
        } else if !members.isEmpty {
            for (name, member) in members.sorted(by: { JSONValue.precedesInUTF8($0.key, $1.key) }) {
                self.key(text: name)
                try value(&self, member)
            }
        }
        endObject()
    }

    /// A value that goes through `JSONValueEncoder` (for rarely present nested types).
    public mutating func encoded(_ value: some Encodable) throws {
        raw(Array(try JSONValueEncoder().encode(value).utf8))
    }

    /// A member whose value goes through `JSONValueEncoder`; nothing when it is nil.
    public mutating func encoded(_ key: StaticString, _ value: (some Encodable)?) throws {
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
