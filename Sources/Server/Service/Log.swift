import Foundation
import JSON
import Threads

/// How much the server says (`log.level`): a line is written when its level is at least this.
package enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    package var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    package init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A value in a log line's fields.
package enum LogValue: Sendable, Equatable {
    case text(String)
    /// Written as digits in both formats (`status=200`, `"status":200`).
    case integer(Int64)
    /// Three decimals, in text (`ms=1.235`) and in JSON (`"ms":1.235`, not the binary value's
    /// `0.37235399999999996`); `null` in JSON when not finite.
    case number(Double)

    /// The field's value in a JSON line.
    var json: JSONValue {
        switch self {
        case .text(let text): .string(text)
        case .integer(let value): .integer(value)
        case .number(let value): .number(value.isFinite ? (value * 1000).rounded() / 1000 : value)
        }
    }
}

/// `log` in the configuration: level, format, and which requests get access lines.
package struct LogConfig: Sendable, Equatable {
    package enum Format: String, Sendable { case text, json }
    package var level = LogLevel.info
    package var format = Format.text
    /// An access line per request answered.
    package var access = true
    /// Access lines for `/health` and `/metrics` too (probes and scrapes: off by default).
    package var accessProbes = false

    package init() {}
}

/// What the running server says, one line per event worth knowing, on standard error (`sink`):
/// `TIME LEVEL EVENT MESSAGE key=value ...` as text, or one JSON object per line.
///
/// Callers never pass secrets: API keys, webhook and signing secrets, key files and database
/// passwords stay out of messages and fields (URLs are logged without their user information).
package final class Log: Sendable {
    package let config: LogConfig
    private let sink: @Sendable (String) -> Void
    private let clock: @Sendable () -> Date

    /// - Parameter sink: takes each whole line, its line break included.
    package init(
        _ config: LogConfig = LogConfig(), clock: @escaping @Sendable () -> Date = Date.init,
        sink: @escaping @Sendable (String) -> Void = Log.standardError
    ) {
        self.config = config
        self.sink = sink
        self.clock = clock
    }

    /// Standard error, a line per `write(2)` (`StandardStreams.error`).
    package static let standardError: @Sendable (String) -> Void = { StandardStreams.error($0) }

    /// Whether a line at `level` would be written (to skip building one that would not).
    package func enabled(_ level: LogLevel) -> Bool { level >= config.level }

    package func write(_ level: LogLevel, _ event: String, _ message: String = "", _ fields: [(String, LogValue)] = []) {
        guard enabled(level) else { return }
        let time = Self.time(milliseconds: UnixTime.milliseconds(clock()))
        switch config.format {
        case .text: sink(Self.text(time: time, level: level, event: event, message: message, fields: fields))
        case .json: sink(Self.json(time: time, level: level, event: event, message: message, fields: fields))
        }
    }

    package func debug(_ event: String, _ message: String = "", _ fields: [(String, LogValue)] = []) {
        write(.debug, event, message, fields)
    }
    package func info(_ event: String, _ message: String = "", _ fields: [(String, LogValue)] = []) {
        write(.info, event, message, fields)
    }
    package func warning(_ event: String, _ message: String = "", _ fields: [(String, LogValue)] = []) {
        write(.warning, event, message, fields)
    }
    package func error(_ event: String, _ message: String = "", _ fields: [(String, LogValue)] = []) {
        write(.error, event, message, fields)
    }

    // MARK: - Formats

    /// `2026-12-03T15:40:50.123Z`: ISO 8601 in UTC, to the millisecond.
    static func time(milliseconds: Int64) -> String {
        let seconds = ISO8601UTC.string(fromMilliseconds: milliseconds)
        let fraction = (milliseconds % 1000 + 1000) % 1000
        return seconds.dropLast() + "." + String(fraction + 1000).dropFirst() + "Z"
    }

    static func text(time: String, level: LogLevel, event: String, message: String, fields: [(String, LogValue)]) -> String {
        var line = "\(time) \(level.name) \(event)"
        if !message.isEmpty { line += " " + message.escapingControls }
        for (key, value) in fields {
            line += " \(key)="
            switch value {
            case .text(let text): line += Self.quotedIfNeeded(text)
            case .integer(let number): line += String(number)
            case .number(let number): line += String(format: "%.3f", number)
            }
        }
        return line + "\n"
    }

    static func json(time: String, level: LogLevel, event: String, message: String, fields: [(String, LogValue)]) -> String {
        var object: [String: JSONValue] = [
            "time": .string(time), "level": .string(level.name), "event": .string(event),
        ]
        if !message.isEmpty { object["message"] = .string(message) }
        // A field named as one of the line's own members is kept beside it, not dropped.
        for (key, value) in fields { object[object[key] == nil ? key : "field_\(key)"] = value.json }
        // What JSON leaves raw of `isControl` can only stand inside a string: escaped there too.
        return Self.escapingRest(JSONValue.object(object).serialized()) + "\n"
    }

    /// JSON text with DEL, the C1 controls and the line and bidirectional characters of
    /// `isControl` written as `\uXXXX`, as JSON may write any character (it escapes C0 itself).
    private static func escapingRest(_ json: String) -> String {
        json.escapingControls { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    /// A value as it is when it reads unambiguously (no space, quote, `=` or control character),
    /// else in JSON string quotes, with DEL, the C1 controls and the line and bidirectional
    /// characters of `isControl` (which JSON leaves as they are, and some readers take for a
    /// line break, a terminal sequence or a reordering) escaped too.
    private static func quotedIfNeeded(_ text: String) -> String {
        let plain = !text.isEmpty && !text.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isControl }
        if plain { return text }
        return escapingRest(JSONValue.string(text).serialized())
    }
}
