import AppStore
import Foundation
import Server

/// `revenuedot explain [TYPE [SUBTYPE]] [--json]`: what a notification means and what to do.
public struct ExplainCommand {
    public static let usage = """
        usage: revenuedot explain [--json]           every notificationType with a one-line meaning
                                                     (--json: an array of types, each with its subtypes)
               revenuedot explain TYPE [SUBTYPE]     one type (its first subtype when none is given)
               revenuedot explain TYPE [SUBTYPE] --json

          --config FILE is accepted, as by every command, and not read: the reference is the
          same for every configuration.

          What the notification means, what triggers it, what your server should do, and what
          RevenueDot does with it: the last part comes from running an example through RevenueDot's
          own verifier and reducer.
        """

    let parsed: ParsedArguments

    public init(arguments: [String]) throws {
        parsed = try ParsedArguments(arguments, valueOptions: ["config"], flagOptions: ["json"])
        guard parsed.positionals.count <= 2 else { throw UsageError("explain takes at most TYPE and SUBTYPE") }
    }

    public func run() throws -> Int32 {
        guard let type = parsed.positionals.first else {
            let json = parsed.flags.contains("json")
            StandardStreams.out(json ? CatalogRenderer.listJSON().serialized(pretty: true) + "\n" : CatalogRenderer.list())
            return 0
        }
        guard let entry = NotificationCatalog.entry(type) else {
            let suggestions = NotificationCatalog.closest(to: type, among: NotificationCatalog.entries.map(\.type))
            let hint = suggestions.isEmpty ? "" : " Did you mean \(suggestions.joined(separator: ", "))?"
            StandardStreams.error("revenuedot explain: unknown notificationType \"\(type)\".\(hint)\n")
            return 2
        }
        let subtype = parsed.positionals.count > 1 ? parsed.positionals[1] : nil
        let kase: CatalogCase
        if let subtype {
            guard let found = NotificationCatalog.kase(entry, subtype: subtype) else {
                let names = entry.cases.compactMap(\.name)
                let suggestions = NotificationCatalog.closest(to: subtype, among: names)
                let known = names.isEmpty ? "it has no subtypes" : "its subtypes are \(names.joined(separator: ", "))"
                let hint = suggestions.isEmpty ? "" : " Did you mean \(suggestions.joined(separator: ", "))?"
                StandardStreams.error(
                    "revenuedot explain: \(entry.type) has no subtype \"\(subtype)\" (\(known)).\(hint)\n")
                return 2
            }
            kase = found
        } else {
            guard let first = NotificationCatalog.kase(entry, subtype: nil) ?? entry.cases.first else { return 1 }
            kase = first
        }
        let renderer = try CatalogRenderer()
        if parsed.flags.contains("json") {
            StandardStreams.out(try renderer.json(entry, kase).serialized(pretty: true) + "\n")
        } else {
            StandardStreams.out(try renderer.text(entry, kase))
        }
        return 0
    }
}

/// `revenuedot docs --out DIR`: the notification reference as Markdown, one page per type.
public struct DocsCommand {
    public static let usage = """
        usage: revenuedot docs --out DIR [--config FILE]

          --config FILE is accepted, as by every command, and not read.

          Writes DIR/README.md (the index) and one page per notificationType. The repository keeps
          them in docs/notifications; a test fails when they differ from what this writes.
        """

    let parsed: ParsedArguments

    public init(arguments: [String]) throws {
        parsed = try ParsedArguments(arguments, valueOptions: ["out", "config"], flagOptions: [])
        guard parsed.value("out") != nil, parsed.positionals.isEmpty else { throw UsageError("docs needs --out DIR") }
    }

    public func run() throws -> Int32 {
        let directory = URL(fileURLWithPath: parsed.value("out") ?? "docs/notifications")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let pages = try CatalogRenderer().pages()
        for (name, text) in pages.sorted(by: { $0.key < $1.key }) {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        StandardStreams.out("wrote \(pages.count) pages to \(directory.path)\n")
        return 0
    }
}
