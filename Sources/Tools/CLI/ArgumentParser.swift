import Server

/// Splits a command line into options and positional arguments.
///
/// Options are `--name value`, `--name=value`, or flags (`--lines`). Only the options a command
/// names `repeatable` may be given more than once: another given twice is refused, as the user
/// meant one of them and the command would use the other. A value that starts with `--` is given
/// as `--name=value`.
/// `-` alone is positional (standard input); `--` ends option parsing. An option's value is never empty.
package struct ParsedArguments: Sendable {
    package private(set) var options: [String: [String]] = [:]
    package private(set) var flags: Set<String> = []
    package private(set) var positionals: [String] = []

    /// Parses `arguments` knowing which names take a value, which of those may repeat, and which
    /// are flags.
    package init(
        _ arguments: [String], valueOptions: Set<String>, flagOptions: Set<String>, repeatable: Set<String> = []
    ) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard !optionsEnded, argument.hasPrefix("--") else {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flagOptions.contains(name) {
                guard value == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if valueOptions.contains(name) {
                if value == nil {
                    // The next option is not this one's value (`--limit --config x`); `--name=--x` gives one.
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw UsageError("--\(name) needs a value")
                    }
                    value = arguments[index]
                    index += 1
                }
                // An empty value (`--out ""`, an unset shell variable) names nothing: no option
                // reads one as "here" or "none".
                guard let value, !value.isEmpty else { throw UsageError("--\(name) needs a value, not an empty one") }
                if let earlier = options[name]?.first, !repeatable.contains(name) {
                    throw UsageError("--\(name) is given twice (\(earlier) and \(value)): give it once")
                }
                options[name, default: []].append(value)
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    /// Refuses any option or flag given but not in `used`: `what` (a subcommand, an endpoint)
    /// would ignore it, and a user would believe it did something. `hint` may say, of the
    /// option's name, where it belongs.
    package func refuseUnused(
        except used: Set<String>, by what: String, hint: (String) -> String? = { _ in nil }
    ) throws(UsageError) {
        if let unused = Set(options.keys).union(flags).subtracting(used.union(["config"])).sorted().first {
            throw UsageError("\(what) does not use --\(unused)" + (hint(unused).map { "; \($0)" } ?? ""))
        }
    }

    /// The value given for `name` (the last, for a repeatable option).
    package func value(_ name: String) -> String? { options[name]?.last }

    /// Every value given for `name`, in order.
    package func values(_ name: String) -> [String] { options[name] ?? [] }
}
