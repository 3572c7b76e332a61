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

    public mutating func beginObject() {
        prefix()
        bytes.append(UInt8(ascii: "{"))
        empty.append(true)
    }

    public mutating func endObject() {
        empty.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func beginArray() {
        prefix()
        bytes.append(UInt8(ascii: "["))
        empty.append(true)
    }

    public mutating func endArray() {
        empty.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// A member's key; its value follows.
    public mutating func key(_ key: String) {
        prefix()
        JSONValue.string(key).write(into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
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
    private mutating func prefix() {
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
