import Foundation

/// A strict RFC 8259 JSON parser into `JSONValue`.
///
/// Used where every member of a payload must be kept and `JSONDecoder`'s generic machinery is
/// too slow (printing verified payloads). Rejects trailing commas, comments, leading zeros,
/// lone surrogates, invalid UTF-8, control characters in strings, trailing text and nesting
/// past 512 levels. A repeated member name keeps its last value, as `JSONSerialization` does,
/// unless the caller asks for it to be refused (`JSONValue.RepeatedName`). `JSONDecoder` keeps
/// the first: where one text may be read by both, refuse repeated names.
package struct JSONParser {
    package struct Failure: Error, CustomStringConvertible {
        package var offset: Int
        package var reason: String
        package var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0
    /// Set when repeated member names are refused: the members and elements the parser is in,
    /// spelled out (`apps[0].id`) only for the error.
    private var path: [JSONValue.RepeatedName.Step]?
    /// The top-level members kept (nil: all); the others are checked as JSON and dropped.
    private var kept: Set<String>?
    /// Above 0 inside a dropped value: nothing is built there, so the memory a text costs does not
    /// grow with what it holds besides the kept members.
    private var dropping = 0

    /// `kept`: only these members of the object the text is are built; the others, or a text
    /// that is no object, are parsed as strictly and answered `null` (an array empty), and
    /// their names are not checked for repeats.
    package static func parse(_ data: Data, refusingRepeatedNames: Bool = false, kept: Set<String>? = nil) throws
        -> JSONValue
    {
        try data.withUnsafeBytes { buffer in
            var parser = JSONParser(bytes: buffer)
            if refusingRepeatedNames { parser.path = [] }
            parser.kept = kept
            parser.skipWhitespace()
            // Kept members are an object's: any other text is checked and dropped whole.
            if kept != nil, parser.current != UInt8(ascii: "{") { parser.dropping = 1 }
            let value = try parser.value()
            parser.skipWhitespace()
            guard parser.index == buffer.count else { throw parser.failure("text after the value") }
            return value
        }
    }

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count,
            memcmp(bytes.baseAddress! + index, literal.utf8Start, count) == 0
        else { throw failure("expected a JSON value (\(literal)?)") }
        index += count
    }

    private mutating func value() throws -> JSONValue {
        guard let byte = current else { throw failure("unexpected end") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= 512 else { throw failure("nested too deeply") }
    }

    private mutating func object() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object([:])
        }
        // Members are collected first and the dictionary built at its final size: growing it
        // member by member rehashed every key at each doubling.
        var members: [(String, JSONValue)] = []
        // Where names are refused: a set of them once the object is past a few, so that an
        // object of many members costs linear time, not quadratic.
        var names: Set<String>?
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let offset = index
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            if dropping > 0 || (depth == 1 && kept.map { !$0.contains(key) } ?? false) {
                dropping += 1
                _ = try value()
                dropping -= 1
            } else if path != nil {
                let repeated: Bool
                if names != nil {
                    repeated = !names!.insert(key).inserted
                } else if members.count < 16 {
                    repeated = members.contains { $0.0 == key }
                } else {
                    names = Set(members.lazy.map(\.0))
                    repeated = !names!.insert(key).inserted
                }
                if repeated { throw JSONValue.RepeatedName(path: path!, name: key, offset: offset) }
                path!.append(.member(key))
                members.append((key, try value()))
                path!.removeLast()
            } else {
                members.append((key, try value()))
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return dropping > 0 ? .null : .object(Dictionary(members) { _, last in last })
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if dropping > 0 {
                _ = try value()
            } else if path != nil {
                path!.append(.element(elements.count))
                elements.append(try value())
                path!.removeLast()
            } else {
                elements.append(try value())
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func string() throws -> String {
        index += 1
        let start = index
        // Fast path: plain bytes up to the closing quote (long JWS strings live here).
        let (end, ascii) = ByteScan.plainRun(in: bytes, from: index)
        index = end
        if current == UInt8(ascii: "\"") {
            let run = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            // `String(validating:)` is generic and unspecialized: it costs more than the scan.
            guard let text = ascii ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self) else {
                throw failure("invalid UTF-8 in a string")
            }
            index += 1
            return text
        }
        var output = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: output, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
                return text
            case UInt8(ascii: "\\"): try escape(into: &output)
            case 0..<0x20: throw failure("control character in a string")
            default: output.append(byte)
            }
        }
    }

    private mutating func escape(into output: inout [UInt8]) throws {
        guard let byte = current else { throw failure("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(scalar) {
                try expect("\\u")
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw failure("lone surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("lone surrogate") }
            output.append(contentsOf: String(Character(unicode)).utf8)
        default: throw failure("invalid escape")
        }
    }

    private mutating func hex4() throws -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("bad \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func number() throws -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw failure("expected a digit")
        }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        var integral = true
        if current == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard try digitFollows() else { throw failure("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try digitFollows() else { throw failure("expected a digit in the exponent") }
        }
        if integral, let value = integer(from: start, to: index) { return .integer(value) }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text) else { throw failure("number out of range") }
        return .number(value)
    }

    /// The integer written in `bytes[start..<end]` (an optional minus and digits, already
    /// checked), or nil when it does not fit in `Int64`.
    private func integer(from start: Int, to end: Int) -> Int64? {
        let negative = bytes[start] == UInt8(ascii: "-")
        var value: Int64 = 0
        for offset in (negative ? start + 1 : start)..<end {
            let digit = Int64(bytes[offset] &- UInt8(ascii: "0"))
            // Accumulated as a negative number: Int64.min has no positive counterpart.
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, underflow) = shifted.subtractingReportingOverflow(digit)
            if overflow || underflow { return nil }
            value = next
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    private mutating func digitFollows() throws -> Bool {
        guard let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
        skipDigits()
        return true
    }

    private mutating func skipDigits() {
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
    }
}
