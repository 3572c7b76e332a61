import Foundation
import JSON
import Synchronization
import Testing

@testable import Server

/// The log's two formats and its level filter, line by line.
@Suite struct LogFormatTests {
    static let clock = Date(timeIntervalSince1970: 1_800_000_000.25)

    static func lines(_ config: LogConfig, _ write: (Log) -> Void) -> [String] {
        let lines = Mutex<[String]>([])
        write(Log(config, clock: { clock }, sink: { line in lines.withLock { $0.append(line) } }))
        return lines.withLock { $0 }
    }

    @Test func textPutsTimeLevelEventMessageAndFieldsOnOneLine() {
        let lines = Self.lines(LogConfig()) { log in
            log.warning(
                "webhook.failed", "the event is sent again later",
                [
                    ("app", .text("demo")), ("status", .integer(500)), ("ms", .number(1.23456)),
                    ("reason", .text("answered \"no\" = bad\nthen closed")), ("empty", .text("")),
                ])
        }
        #expect(
            lines == [
                "2027-01-15T08:00:00.250Z warning webhook.failed the event is sent again later app=demo status=500 ms=1.235 "
                    + #"reason="answered \"no\" = bad\nthen closed" empty="""# + "\n"
            ])
    }

    /// DEL, the C1 controls (NEL, CSI), line separators and bidirectional overrides in a field
    /// are escaped as JSON escapes, not written raw.
    @Test func aFieldWithC1ControlsIsQuotedAndEscaped() throws {
        let lines = Self.lines(LogConfig()) {
            $0.info("access", "", [("path", .text("/a\u{85}b\u{9B}c\u{7F}d\u{2028}e\u{202E}"))])
        }
        #expect(
            lines == [#"2027-01-15T08:00:00.250Z info access path="/a\u0085b\u009Bc\u007Fd\u2028e\u202E""# + "\n"])
        let quoted = try #require(lines.first?.split(separator: "=", maxSplits: 1).last?.dropLast())
        #expect(try JSONValue(parsing: Data(quoted.utf8)) == .string("/a\u{85}b\u{9B}c\u{7F}d\u{2028}e\u{202E}"))
    }

    @Test func aMessageWithALineBreakStaysOnOneLine() {
        let lines = Self.lines(LogConfig()) { $0.error("x", "first\nsecond") }
        #expect(lines.count == 1)
        #expect(lines[0].dropLast().contains("\n") == false, "\(lines)")
    }

    @Test func jsonWritesOneObjectPerLine() throws {
        var config = LogConfig()
        config.format = .json
        let lines = Self.lines(config) { log in
            log.info("access", "", [("path", .text("/health")), ("status", .integer(200)), ("ms", .number(0.5))])
            log.error("storage.failing", "disk\nfull", [("time", .text("a field may not replace the line's time"))])
            log.info("access", "", [("path", .text("/a\u{2028}b\u{202E}c\u{85}"))])
        }
        #expect(lines.count == 3)
        // A line separator, a bidirectional override and NEL are escaped inside the string.
        #expect(lines[2].contains(#""path":"/a\u2028b\u202Ec\u0085""#), "\(lines[2])")
        #expect(try JSONValue(parsing: Data(lines[2].utf8))["path"] == .string("/a\u{2028}b\u{202E}c\u{85}"))
        let first = try JSONValue(parsing: Data(lines[0].utf8))
        #expect(first["time"]?.stringValue == "2027-01-15T08:00:00.250Z")
        #expect(first["level"]?.stringValue == "info")
        #expect(first["event"]?.stringValue == "access")
        #expect(first["message"] == nil)
        #expect(first["status"] == .integer(200))
        #expect(first["path"]?.stringValue == "/health")
        let second = try JSONValue(parsing: Data(lines[1].utf8))
        #expect(second["message"]?.stringValue == "disk\nfull")
        #expect(second["time"]?.stringValue == "2027-01-15T08:00:00.250Z")
        #expect(second["field_time"]?.stringValue == "a field may not replace the line's time")
        #expect(lines.allSatisfy { $0.hasSuffix("}\n") && $0.dropLast().contains("\n") == false })
    }

    /// Each kind of field as a JSON line spells it: members sorted, integers without a fraction.
    @Test(arguments: [
        (LogValue.integer(200), "200"),
        (.integer(0), "0"),
        (.integer(-42), "-42"),
        (.integer(Int64.max), "9223372036854775807"),
        (.integer(Int64.min), "-9223372036854775808"),
        (.number(0.5), "0.5"),
        (.number(1051), "1051.0"),
        (.number(1.23456), "1.235"),
        (.number(.infinity), "null"),
        (.number(.nan), "null"),
        (.text("demo"), #""demo""#),
        (.text(""), #""""#),
        (.text("say \"no\"\tthen\nstop \\ \u{1}"), #""say \"no\"\tthen\nstop \\ \u0001""#),
    ])
    func jsonSpellsEachKindOfField(value: LogValue, spelled: String) throws {
        var config = LogConfig()
        config.format = .json
        let lines = Self.lines(config) { $0.warning("x.y", "a message", [("value", value)]) }
        #expect(
            lines == [
                #"{"event":"x.y","level":"warning","message":"a message","time":"2027-01-15T08:00:00.250Z","value":"#
                    + spelled + "}\n"
            ])
        let parsed = try JSONValue(parsing: Data(try #require(lines.first).utf8))
        let expected: JSONValue? =
            switch value {
            case .integer(let integer): .integer(integer)
            case .number(let number): number.isFinite ? .number((number * 1000).rounded() / 1000) : .null
            case .text(let text): .string(text)
            }
        #expect(parsed["value"] == expected)
    }

    /// What a server writes with `"format": "json"`: every line an object, counts as integers,
    /// durations to three decimals as in text.
    @Test func aJSONAccessLineParsesWithIntegerCounts() throws {
        var config = LogConfig()
        config.format = .json
        let lines = Self.lines(config) { log in
            log.info(
                "access", "",
                [
                    ("method", .text("GET")), ("path", .text("/v1/subscribers/alice")), ("status", .integer(200)),
                    ("ms", .number(0.37235399999999996)), ("bytes", .integer(1051)), ("remote", .text("127.0.0.1")),
                ])
            log.info("config.reloaded", "the new configuration is in force", [("apps", .integer(1)), ("webhooks", .integer(0))])
        }
        #expect(
            lines == [
                #"{"bytes":1051,"event":"access","level":"info","method":"GET","ms":0.372,"path":"/v1/subscribers/alice","#
                    + #""remote":"127.0.0.1","status":200,"time":"2027-01-15T08:00:00.250Z"}"# + "\n",
                #"{"apps":1,"event":"config.reloaded","level":"info","message":"the new configuration is in force","#
                    + #""time":"2027-01-15T08:00:00.250Z","webhooks":0}"# + "\n",
            ])
        for line in lines { #expect(try JSONValue(parsing: Data(line.utf8)).objectValue != nil) }
    }

    @Test(arguments: LogLevel.allCases) func aLevelKeepsItselfAndWhatIsAboveIt(level: LogLevel) {
        var config = LogConfig()
        config.level = level
        let lines = Self.lines(config) { log in
            for each in LogLevel.allCases { log.write(each, "e.\(each.name)") }
        }
        let events = lines.map { $0.dropLast().split(separator: " ")[2] }
        #expect(events == LogLevel.allCases.filter { $0 >= level }.map { "e.\($0.name)" })
    }

    @Test func theConfigurationSetsLevelFormatAndAccessLines() throws {
        let directory = TestDirectory("log-config")
        func load(_ log: String) throws -> RevenueDotConfig {
            try ConfigLoader.parse(
                Data(
                    """
                    {"apps": [{"id": "a", "bundleId": "com.example.a", "environments": ["Sandbox"]}], "log": \(log)}
                    """.utf8), file: directory.path("revenuedot.json"))
        }
        let config = try load(#"{"level": "debug", "format": "json", "access": false, "accessProbes": true}"#).log
        #expect(config.level == .debug && config.format == .json && !config.access && config.accessProbes)
        #expect(try load("{}").log == LogConfig())
        for (bad, message) in [
            (#"{"level": "verbose"}"#, "log.level: \"verbose\" is not a level: debug, info, warning or error"),
            (#"{"format": "xml"}"#, "log.format: \"xml\" is not a format: text or json"),
            (#"{"colour": true}"#, "log.colour"),
        ] {
            #expect(throws: ConfigError.self) { try load(bad) }
            do { _ = try load(bad) } catch { #expect("\(error)".contains(message), "\(error)") }
        }
    }
}
