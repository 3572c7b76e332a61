import Foundation

/// Any JSON value, for payloads whose every member must survive (unknown fields included) and
/// for output with a stable member order.
///
/// Parsed and written by hand: `JSONDecoder`'s generic machinery is slow for untyped values,
/// and `JSONSerialization` sorts keys by locale. Members are written sorted by their UTF-8
/// bytes, which is deterministic.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses JSON text.
    public init(parsing data: Data) throws {
        self = try JSONParser.parse(data)
    }

    /// Parses JSON text in which no object names a member twice (a configuration, where the
    /// second `listen` silently winning would hide a mistake); throws `RepeatedName` if one does.
    public init(parsingWithoutRepeatedNames data: Data) throws {
        self = try JSONParser.parse(data, refusingRepeatedNames: true)
    }

    /// Parses JSON text as `parsingWithoutRepeatedNames` does, building only the top-level
    /// members named `kept`: the rest is checked and dropped, so that a text holding much else
    /// (an internet request) costs memory for what is read, not for what it holds.
    public init(parsingWithoutRepeatedNames data: Data, keeping kept: Set<String>) throws {
        self = try JSONParser.parse(data, refusingRepeatedNames: true, kept: kept)
    }

    /// A member name given twice in one object.
    public struct RepeatedName: Error, CustomStringConvertible, Sendable {
        /// Where the second one is, as `apps[0].bundleId` (a top-level member is its name).
        public var path: String
        /// The byte offset of the second one.
        public var offset: Int

        public var description: String { "\(path) is given twice (the second at byte \(offset))" }

        /// A member or an element on the way to a value.
        package enum Step {
            case member(String)
            case element(Int)
        }

        /// The longest `path` spelled out, in bytes of UTF-8: a longer one keeps its innermost
        /// end, after "…", so that a text sent to be refused does not make its refusal as long as
        /// itself.
        package static let pathLimit = 200

        /// Member `name`, given again inside the value `steps` lead to, at byte `offset`.
        package init(path steps: [Step], name: String, offset: Int) {
            var path = ""
            for step in steps {
                switch step {
                case .member(let member): path += path.isEmpty ? member : "." + member
                case .element(let index): path += "[\(index)]"
                }
            }
            path += path.isEmpty ? name : "." + name
            self.path = path.utf8.count > Self.pathLimit ? "…" + path.utf8Suffix(maxBytes: Self.pathLimit - 3) : path
            self.offset = offset
        }
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let members) = self else { return nil }
            return members[key]
        }
        set {
            guard case .object(var members) = self else { return }
            members[key] = newValue
            self = .object(members)
        }
    }

    /// The elements of an array, or nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members of an object, or nil.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The string value, or nil.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// JSON text: compact on one line, or indented by two spaces per level.
    public func serialized(pretty: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        write(into: &output, pretty: pretty, depth: 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends compact JSON text (object keys sorted) to `output`.
    public func write(into output: inout [UInt8]) {
        write(into: &output, pretty: false, depth: 0)
    }

    private func write(into output: inout [UInt8], pretty: Bool, depth: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): Self.writeInteger(value, into: &output)
        case .number(let value):
            output.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
        case .string(let value): Self.writeString(value, into: &output)
        case .array(let elements):
            writeContainer(
                open: UInt8(ascii: "["), close: UInt8(ascii: "]"), count: elements.count, into: &output, pretty: pretty,
                depth: depth
            ) { index, output in
                elements[index].write(into: &output, pretty: pretty, depth: depth + 1)
            }
        case .object(let members):
            let keys = members.keys.sorted(by: Self.precedesInUTF8)
            writeContainer(
                open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), count: keys.count, into: &output, pretty: pretty,
                depth: depth
            ) { index, output in
                Self.writeString(keys[index], into: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                members[keys[index]]!.write(into: &output, pretty: pretty, depth: depth + 1)
            }
        }
    }

    private func writeContainer(
        open: UInt8, close: UInt8, count: Int, into output: inout [UInt8], pretty: Bool, depth: Int,
        element: (Int, inout [UInt8]) -> Void
    ) {
        output.append(open)
        for index in 0..<count {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            if pretty { Self.newline(into: &output, depth: depth + 1) }
            element(index, &output)
        }
        if pretty, count > 0 { Self.newline(into: &output, depth: depth) }
        output.append(close)
    }

    private static func newline(into output: inout [UInt8], depth: Int) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The decimal digits of `value`, as `String(value)` spells them, without making that string.
    package static func writeInteger(_ value: Int64, into output: inout [UInt8]) {
        // 20 bytes hold Int64.min's 19 digits and its sign.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var magnitude = value.magnitude
            var start = 20
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<20]))
        }
    }

    package static func writeString(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            // Most strings need no escape: find the bytes that do, 16 at a time, and copy the
            // plain runs between them at once.
            var start = 0
            while true {
                let special = ByteScan.plainRun(in: UnsafeRawBufferPointer(bytes), from: start).end
                guard special < bytes.count else { break }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<special]))
                let byte = bytes[special]
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
                case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
                case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
                case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
                default:
                    output.append(contentsOf: #"\u00"#.utf8)
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
                start = special + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Byte order of the UTF-8 encodings: the key order of sorted output, the same as `JSONEncoder`'s.
    public static func precedesInUTF8(_ lhs: String, _ rhs: String) -> Bool {
        compareUTF8(lhs, rhs) < 0
    }

    /// The UTF-8 bytes of `lhs` against those of `rhs`: negative, zero or positive, as `memcmp`,
    /// a shorter prefix first. Bytes, unlike `String`'s `<` and `==`, which compare canonical
    /// equivalence.
    package static func compareUTF8(_ lhs: String, _ rhs: String) -> Int {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                let common = min(left.count, right.count)
                if common > 0, let a = left.baseAddress, let b = right.baseAddress {
                    let order = memcmp(a, b, common)
                    if order != 0 { return Int(order) }
                }
                return left.count - right.count
            }
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [String: JSONValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(members)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? single.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .null: try single.encodeNil()
        case .bool(let value): try single.encode(value)
        case .integer(let value): try single.encode(value)
        case .number(let value): try single.encode(value)
        case .string(let value): try single.encode(value)
        case .array(let elements): try single.encode(elements)
        case .object(let members): try single.encode(members)
        }
    }

    private struct AnyKey: CodingKey {
        package var stringValue: String
        package var intValue: Int? { nil }
        package init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
