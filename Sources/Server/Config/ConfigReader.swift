import AppStore
import JSON

/// Reads typed values out of a parsed JSON configuration, naming the key path in every error
/// and refusing keys it does not know (a misspelt key is a mistake, not something to ignore).
package struct ConfigReader {
    package let file: String
    package let path: String
    private let members: [String: JSONValue]

    package init(file: String, path: String, value: JSONValue) throws(ConfigError) {
        guard case .object(let members) = value else {
            throw ConfigError(file: file, key: path, problem: "must be a JSON object")
        }
        self.file = file
        self.path = path
        self.members = members
    }

    package func key(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    package func fail(_ name: String, _ problem: String) -> ConfigError {
        ConfigError(file: file, key: key(name), problem: problem)
    }

    /// Refuses any member not in `known`.
    package func rejectUnknownKeys(_ known: Set<String>) throws(ConfigError) {
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            let expected = known.sorted().joined(separator: ", ")
            throw fail(unknown, "unknown key (expected one of: \(expected))")
        }
    }

    /// Refuses `null` for any of `names`: keys whose default is a choice of its own (a local
    /// database, a port, no webhook), which a template rendering `null` must not make silently.
    /// Elsewhere `null` reads as the key left out.
    package func rejectNull(_ names: [String]) throws(ConfigError) {
        if let name = names.first(where: { members[$0] == .null }) {
            throw fail(name, "is null: leave the key out for its default, or give a value")
        }
    }

    package func has(_ name: String) -> Bool { members[name] != nil && members[name] != .null }

    /// Whether `name` holds an object (rather than a string, say).
    package func hasObject(_ name: String) -> Bool {
        if case .object = members[name] { return true }
        return false
    }

    package func string(_ name: String) throws(ConfigError) -> String? {
        guard let value = members[name], value != .null else { return nil }
        guard case .string(let text) = value else { throw fail(name, "must be a string") }
        guard !text.isEmpty else { throw fail(name, "must not be empty") }
        return text
    }

    package func requiredString(_ name: String) throws(ConfigError) -> String {
        guard let text = try string(name) else { throw fail(name, "missing") }
        return text
    }

    package func integer(_ name: String) throws(ConfigError) -> Int64? {
        guard let value = members[name], value != .null else { return nil }
        guard case .integer(let number) = value else {
            if case .number(let number) = value, Self.isPastInt64(number) {
                throw fail(name, "is out of range: an integer from \(Int64.min) to \(Int64.max)")
            }
            throw fail(name, "must be an integer")
        }
        return number
    }

    /// Whether `number` is a whole number too large for `Int64` (the parser reads one as a double).
    private static func isPastInt64(_ number: Double) -> Bool {
        number.rounded() == number && abs(number) >= 9.223_372_036_854_775_807e18
    }

    package func integer(_ name: String, in range: ClosedRange<Int64>) throws(ConfigError) -> Int64? {
        let mustBe = "must be between \(range.lowerBound) and \(range.upperBound)"
        if case .number(let number)? = members[name], Self.isPastInt64(number) { throw fail(name, mustBe) }
        guard let number = try integer(name) else { return nil }
        guard range.contains(number) else { throw fail(name, mustBe) }
        return number
    }

    package func bool(_ name: String) throws(ConfigError) -> Bool? {
        guard let value = members[name], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw fail(name, "must be true or false") }
        return flag
    }

    package func strings(_ name: String) throws(ConfigError) -> [String]? {
        guard let value = members[name], value != .null else { return nil }
        guard case .array(let elements) = value else { throw fail(name, "must be an array of strings") }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element, !text.isEmpty else {
                throw fail("\(name)[\(index)]", "must be a non-empty string")
            }
            result.append(text)
        }
        return result
    }

    package func object(_ name: String) throws(ConfigError) -> ConfigReader? {
        guard let value = members[name], value != .null else { return nil }
        return try ConfigReader(file: file, path: key(name), value: value)
    }

    package func array(_ name: String) throws(ConfigError) -> [JSONValue]? {
        guard let value = members[name], value != .null else { return nil }
        guard case .array(let elements) = value else { throw fail(name, "must be an array") }
        return elements
    }

    /// The raw members, for maps such as `entitlements`.
    package var rawMembers: [String: JSONValue] { members }
}
