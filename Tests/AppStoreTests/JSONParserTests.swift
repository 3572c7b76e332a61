import AppStore
import Foundation
import JSON
import Testing

@Suite("JSONParser and JSONValue")
struct JSONParserTests {
    @Test(arguments: [
        (
            #"{"a":1,"b":[true,false,null],"c":"x"}"#,
            JSONValue.object(["a": .integer(1), "b": .array([.bool(true), .bool(false), .null]), "c": .string("x")])
        ),
        (#" [ -0.5 , 1e3, 12 ] "#, .array([.number(-0.5), .number(1000), .integer(12)])),
        (#""\u00e9\ud83d\ude00\n\"\\\/""#, .string("é😀\n\"\\/")),
        (#"9223372036854775807"#, .integer(Int64.max)),
        (#"9223372036854775808"#, .number(9_223_372_036_854_775_808)),
        (#"{"a":1,"a":2}"#, .object(["a": .integer(2)])),
        (#"-9223372036854775808"#, .integer(Int64.min)),
        (#"-9223372036854775809"#, .number(-9_223_372_036_854_775_808)),  // the nearest Double
        (#"[-0, 0, -7, 1234567890123]"#, .array([.integer(0), .integer(0), .integer(-7), .integer(1_234_567_890_123)])),
    ])
    func parsesValidJSON(text: String, expected: JSONValue) throws {
        #expect(try JSONValue(parsing: Data(text.utf8)) == expected)
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", #"{"a":1,}"#, "01", "1.", ".5", "-", "+1", "1e", "tru", "nul", #""abc"#, "\"a\u{01}b\"",
        #""\ud800""#, #""\ud800\u0041""#, #""\x""#, "{} {}", "[1 2]", #"{"a" 1}"#, #"{1:2}"#, "// comment", "NaN",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: (any Error).self) { try JSONValue(parsing: Data(text.utf8)) }
    }

    /// Long strings are scanned 16 bytes at a time: an escape or a control character at any
    /// offset, on either side of a 16-byte boundary, is still seen.
    @Test func longStringsKeepEveryEscapeAndRejectEveryControlCharacter() throws {
        for length in [15, 16, 17, 31, 32, 33, 47, 100] {
            for position in 0..<length {
                var plain = Array(repeating: UInt8(ascii: "a"), count: length)
                plain[position] = UInt8(ascii: "\\")
                plain.insert(UInt8(ascii: "n"), at: position + 1)
                let text = Data([UInt8(ascii: "\"")] + plain + [UInt8(ascii: "\"")])
                let expected =
                    String(repeating: "a", count: position) + "\n" + String(repeating: "a", count: length - position - 1)
                #expect(try JSONValue(parsing: text) == .string(expected))
                var control = Array(repeating: UInt8(ascii: "a"), count: length)
                control[position] = 0x1F
                #expect(throws: (any Error).self) { try JSONValue(parsing: Data([0x22] + control + [0x22])) }
            }
        }
    }

    /// Plain strings skip UTF-8 validation only when every byte is ASCII: a non-ASCII byte at
    /// any offset, inside a 16-byte block or in the tail, sends the string through validation.
    @Test func longStringsValidateEveryNonASCIIByte() throws {
        for length in [1, 15, 16, 17, 31, 32, 33, 100] {
            for position in 0..<length {
                var valid = Array(repeating: UInt8(ascii: "a"), count: length)
                valid.replaceSubrange(position...position, with: Array("é".utf8))
                let expected =
                    String(repeating: "a", count: position) + "é" + String(repeating: "a", count: length - position - 1)
                #expect(try JSONValue(parsing: Data([0x22] + valid + [0x22])) == .string(expected))
                var invalid = Array(repeating: UInt8(ascii: "a"), count: length)
                invalid[position] = 0xC3  // a lead byte followed by ASCII
                #expect(throws: (any Error).self) { try JSONValue(parsing: Data([0x22] + invalid + [0x22])) }
                invalid[position] = 0x80  // a lone continuation byte
                #expect(throws: (any Error).self) { try JSONValue(parsing: Data([0x22] + invalid + [0x22])) }
            }
        }
    }

    @Test func aRepeatedNameKeepsTheLastValueUnlessRefused() throws {
        let text = Data(#"{"a": [{"b": 1, "c": {"d": 2, "d": 3}}], "e": 4}"#.utf8)
        #expect(try JSONValue(parsing: text)["a"]?.arrayValue?.first?["c"]?["d"] == .integer(3))
        let nested = #expect(throws: JSONValue.RepeatedName.self) { try JSONValue(parsingWithoutRepeatedNames: text) }
        #expect(nested?.path == "a[0].c.d")
        #expect(nested?.offset == 30)
        let top = Data(#"{"x": 1, "y": [], "x": 2}"#.utf8)
        let repeated = #expect(throws: JSONValue.RepeatedName.self) { try JSONValue(parsingWithoutRepeatedNames: top) }
        #expect(repeated?.description == "x is given twice (the second at byte 18)")
        // The same name in different objects is no repetition.
        let distinct = Data(#"{"x": {"x": 1}, "y": [{"x": 1}, {"x": 2}]}"#.utf8)
        #expect(try JSONValue(parsingWithoutRepeatedNames: distinct) == JSONValue(parsing: distinct))
    }

    /// Only the members asked for are built; the rest is checked as strictly and dropped, and a
    /// text that is no object is dropped whole.
    @Test func keptMembersAreBuiltAndTheRestOnlyChecked() throws {
        let text = Data(#"{"a": [[0], {"b": "c", "b": 1}], "signedPayload": "x.y.z", "d": {"e": [true, null]}}"#.utf8)
        let read = try JSONValue(parsingWithoutRepeatedNames: text, keeping: ["signedPayload"])
        #expect(read == .object(["signedPayload": .string("x.y.z")]))
        for bad in [
            #"{"a": [0,], "signedPayload": "x"}"#, #"{"a": {"b": 01}, "signedPayload": "x"}"#,
            #"{"a": "\u0000\ud800", "signedPayload": "x"}"#, "{\"a\": \"\u{1}\", \"signedPayload\": \"x\"}",
            #"{"signedPayload": "x"} trailing"#,
        ] {
            if (try? JSONValue(parsingWithoutRepeatedNames: Data(bad.utf8), keeping: ["signedPayload"])) != nil {
                Issue.record("\(bad) was read")
            }
        }
        let twice = Data(#"{"signedPayload": "x", "a": 1, "signedPayload": "y"}"#.utf8)
        #expect(throws: JSONValue.RepeatedName.self) {
            try JSONValue(parsingWithoutRepeatedNames: twice, keeping: ["signedPayload"])
        }
        #expect(try JSONValue(parsingWithoutRepeatedNames: Data("[[1], [2]]".utf8), keeping: ["a"]) == .array([]))
        let deep = Data((String(repeating: "[", count: 513) + String(repeating: "]", count: 513)).utf8)
        #expect(throws: (any Error).self) { try JSONValue(parsingWithoutRepeatedNames: deep, keeping: ["a"]) }
    }

    /// Names are told apart by a set past a few members: a repeat is found wherever it is, and a
    /// 1 MiB object of 100,000 members is read in well under a second (a scan of the members
    /// before each took minutes). The bound leaves room for a debug build on a busy machine.
    @Test func manyMembersCostLinearTimeAndARepeatIsFoundAmongThem() throws {
        for count in [15, 16, 17, 40] {
            let members = (0..<count).map { #""m\#($0)": \#($0)"# }
            let distinct = Data("{\(members.joined(separator: ", "))}".utf8)
            #expect(try JSONValue(parsingWithoutRepeatedNames: distinct) == JSONValue(parsing: distinct))
            for repeatedIndex in [0, count / 2, count - 1] {
                let text = Data("{\(members.joined(separator: ", ")), \"m\(repeatedIndex)\": true}".utf8)
                let repeated = #expect(throws: JSONValue.RepeatedName.self) { try JSONValue(parsingWithoutRepeatedNames: text) }
                #expect(repeated?.path == "m\(repeatedIndex)")
            }
        }
        let large = Data(("{" + (0..<100_000).map { #""k\#($0)":0"# }.joined(separator: ",") + "}").utf8)
        #expect(large.count > 1_000_000)
        let clock = ContinuousClock()
        let began = clock.now
        #expect(try JSONValue(parsingWithoutRepeatedNames: large)["k99999"] == .integer(0))
        #expect(clock.now - began < .seconds(20))
    }

    /// A repeat deep inside long names is said with the innermost end of its path only.
    @Test func aLongPathIsCutToItsInnermostEnd() throws {
        let name = String(repeating: "n", count: 2048)
        let depth = 64
        let text =
            String(repeating: #"{"\#(name)": "#, count: depth) + #"{"x": 1, "x": 2}"# + String(repeating: "}", count: depth)
        let repeated = #expect(throws: JSONValue.RepeatedName.self) {
            try JSONValue(parsingWithoutRepeatedNames: Data(text.utf8))
        }
        #expect(repeated?.path.utf8.count == JSONValue.RepeatedName.pathLimit)
        #expect(repeated?.path.hasPrefix("…n") == true)
        #expect(repeated?.path.hasSuffix(".x") == true)
        let short = Data(#"[{"a": [0, {"b": 1, "b": 2}]}]"#.utf8)
        let inArrays = #expect(throws: JSONValue.RepeatedName.self) { try JSONValue(parsingWithoutRepeatedNames: short) }
        #expect(inArrays?.path == "[0].a[1].b")
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: (any Error).self) { try JSONValue(parsing: Data([0x22, 0xC3, 0x28, 0x22])) }
    }

    @Test func serializesSortedAndEscaped() throws {
        let value = JSONValue.object(["b": .string("line\n\"q\"\u{01}"), "a": .array([.integer(-3), .number(0.25), .null])])
        #expect(value.serialized() == #"{"a":[-3,0.25,null],"b":"line\n\"q\"\u0001"}"#)
        #expect(try JSONValue(parsing: Data(value.serialized(pretty: true).utf8)) == value)
        #expect(value.serialized(pretty: true).contains("\n  \"a\": [\n    -3,"))
    }

    /// Keys sort by UTF-8 bytes (`Z` < `a` < `é` < `😀`); escapes at the start, the end and next
    /// to each other, around plain runs and non-ASCII text.
    @Test func sortsKeysByUTF8AndEscapesEveryRun() throws {
        let value = JSONValue.object([
            "😀": .integer(1), "é": .integer(2), "a": .integer(3), "Z": .integer(4), "ab": .string("\"\\x\t\u{1F}é\r\n"),
        ])
        #expect(value.serialized() == #"{"Z":4,"a":3,"ab":"\"\\x\t\u001fé\r\n","é":2,"😀":1}"#)
        #expect(try JSONValue(parsing: Data(value.serialized().utf8)) == value)
        #expect(JSONValue.string("").serialized() == #""""#)
    }

    /// Strings are written 16 bytes at a time between escapes: a byte to escape at any offset,
    /// on either side of a 16-byte boundary, is escaped, and the runs around it are kept.
    @Test func longStringsAreEscapedAtEveryOffset() throws {
        let escapes: [(Character, String)] = [("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{1}", #"\u0001"#)]
        for length in [1, 15, 16, 17, 31, 32, 33, 47, 100] {
            for position in 0..<length {
                for (special, escaped) in escapes {
                    let before = String(repeating: "a", count: position)
                    let after = String(repeating: "é", count: length - position - 1)
                    let value = JSONValue.string(before + String(special) + after)
                    #expect(value.serialized() == "\"" + before + escaped + after + "\"")
                    #expect(try JSONValue(parsing: Data(value.serialized().utf8)) == value)
                }
            }
        }
    }

    @Test func roundTripsThroughFoundation() throws {
        let text = #"{"x":{"y":[1,2.5,"z",{"w":false}]},"u":"\u2603"}"#
        let ours = try JSONValue(parsing: Data(text.utf8))
        let viaFoundation = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(ours))
        #expect(viaFoundation == ours)
    }
}

@Suite("JSONWriter")
struct JSONWriterTests {
    @Test func writesCommasAndNestingAsSerializedDoes() throws {
        var out = JSONWriter()
        out.beginObject()
        out.key("a")
        out.beginArray()
        out.integer(1)
        out.beginObject()
        out.endObject()
        out.beginArray()
        out.endArray()
        out.string(nil)
        out.string("x\"y")
        out.endArray()
        out.key("b")
        out.bool(true)
        out.key("c")
        out.value(.object(["z": .integer(2), "y": .null]))
        out.key("d")
        out.null()
        out.endObject()
        let text = String(decoding: out.bytes, as: UTF8.self)
        #expect(text == #"{"a":[1,{},[],null,"x\"y"],"b":true,"c":{"y":null,"z":2},"d":null}"#)
        #expect(try JSONValue(parsing: Data(out.bytes)).serialized() == text)
    }

    /// Commas are tracked in a 64-bit mask and, past 64 levels, in an array: both must place
    /// them as `serialized()` does, on the way in and on the way back out.
    @Test func nestsBeyondSixtyFourLevels() throws {
        var out = JSONWriter()
        var expected = JSONValue.integer(0)
        for level in 0..<100 { expected = .array([.integer(Int64(level)), expected, .string("k\(level)")]) }
        func write(_ value: JSONValue, into out: inout JSONWriter) {
            guard case .array(let elements) = value else { return out.value(value) }
            out.beginArray()
            for element in elements { write(element, into: &out) }
            out.endArray()
        }
        write(expected, into: &out)
        #expect(String(decoding: out.bytes, as: UTF8.self) == expected.serialized())
    }

    /// Integers are written digit by digit (no `String` made): the same text as `String(value)`.
    @Test func writesIntegersAsTheirDescription() throws {
        var samples: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.min + 1, 1_796_114_052_494]
        var generator = SystemRandomNumberGenerator()
        samples += (0..<2000).map { _ in Int64.random(in: Int64.min...Int64.max, using: &generator) >> Int64.random(in: 0...62) }
        for value in samples {
            var out = JSONWriter()
            out.integer(value)
            #expect(String(decoding: out.bytes, as: UTF8.self) == String(value))
            #expect(JSONValue.integer(value).serialized() == String(value))
        }
    }

    /// Keys that are data (entitlement and product identifiers) are escaped like any string.
    @Test func escapesKeysThatAreData() throws {
        var out = JSONWriter()
        out.beginObject()
        out.key(text: "pro \"plus\"\n")
        out.integer(1)
        out.array(text: "a\\b", [1, 2]) { out, value in out.integer(value) }
        out.endObject()
        #expect(String(decoding: out.bytes, as: UTF8.self) == #"{"pro \"plus\"\n":1,"a\\b":[1,2]}"#)
    }
}
