import AppStore
import Foundation
import Server

/// `revenuedot explain [TYPE [SUBTYPE]] [--json|--markdown]`: a notification's reference page.
package struct ExplainCommand {
    package static let usage = """
        usage: revenuedot explain [--json]             every notificationType with a one-line meaning
                                                       (--json: an array of types, each with its subtypes)
               revenuedot explain TYPE [SUBTYPE]       the type's whole page: every subtype, quick facts,
                                                       what triggers it, what to do, what RevenueDot does;
                                                       SUBTYPE (or "none" for no subtype) narrows it
               revenuedot explain TYPE [SUBTYPE] --json|--markdown
                                                       the same page as JSON, or as its Markdown page

          --config FILE is accepted, as by every command, and not read: the reference is the
          same for every configuration.

          What RevenueDot does comes from running each subtype's example through RevenueDot's own
          verifier and reducer; the example code is run by `make docs-check`.
        """

    let parsed: ParsedArguments

    package init(arguments: [String]) throws {
        parsed = try ParsedArguments(arguments, valueOptions: ["config"], flagOptions: ["json", "markdown"])
        guard parsed.positionals.count <= 2 else { throw UsageError("explain takes at most TYPE and SUBTYPE") }
        guard !(parsed.flags.contains("json") && parsed.flags.contains("markdown")) else {
            throw UsageError("explain takes --json or --markdown, not both")
        }
        guard !parsed.positionals.isEmpty || !parsed.flags.contains("markdown") else {
            throw UsageError("explain --markdown needs a TYPE (revenuedot docs --out DIR writes every page)")
        }
    }

    package func run() throws -> Int32 {
        guard let type = parsed.positionals.first else {
            let json = parsed.flags.contains("json")
            StandardStreams.out(json ? CatalogRenderer.listJSON().serialized(pretty: true) + "\n" : CatalogRenderer.list())
            return 0
        }
        guard let entry = NotificationCatalog.entry(type) else {
            let suggestions = NotificationCatalog.closest(to: type, among: NotificationCatalog.entries.map(\.type))
            let hint =
                suggestions.isEmpty
                ? " revenuedot explain lists them." : " Did you mean \(suggestions.joined(separator: ", "))?"
            StandardStreams.error("revenuedot explain: unknown notificationType \"\(type)\".\(hint)\n")
            return 2
        }
        var page = try ReferencePage(entry: entry, renderer: try CatalogRenderer())
        if parsed.positionals.count > 1 {
            let subtype = parsed.positionals[1]
            let wanted: String? = ["none", "-"].contains(subtype.lowercased()) ? nil : subtype
            guard NotificationCatalog.kase(entry, subtype: wanted) != nil else {
                let names = entry.cases.map { $0.name ?? "none" }
                let suggestions = NotificationCatalog.closest(to: subtype, among: entry.cases.compactMap(\.name))
                let hint = suggestions.isEmpty ? "" : " Did you mean \(suggestions.joined(separator: ", "))?"
                StandardStreams.error(
                    "revenuedot explain: \(entry.type) has no subtype \"\(subtype)\" (its subtypes are "
                        + "\(names.joined(separator: ", "))).\(hint)\n")
                return 2
            }
            page = page.narrowed(to: wanted)
        }
        if parsed.flags.contains("json") {
            StandardStreams.out(page.json.serialized(pretty: true) + "\n")
        } else if parsed.flags.contains("markdown") {
            StandardStreams.out(PageMarkdown.page(page))
        } else {
            StandardStreams.out(PageText.page(page))
        }
        return 0
    }
}

/// `revenuedot docs`: writes the notification reference (Markdown pages and the Swift snippet
/// target), or checks what is written against the code and runs every page's example code.
package struct DocsCommand {
    package static let usage = """
        usage: revenuedot docs --out DIR [--snippets DIR]
               revenuedot docs --check DIR --snippets DIR --swift-runner PATH [--node PATH]

          --config FILE is accepted, as by every command, and not read.

          --out writes DIR/README.md (the index, by what each type means for access) and one
          page per notificationType, and with --snippets the Swift snippets and their runner (the
          repository keeps them in docs/notifications and docs/snippets/swift).

          --check (`make docs-check`) fails unless the pages and snippets in DIR are what this
          build writes, every page's JavaScript snippet run with Node prints the output its page
          states, and the Swift snippets' runner (the built revenuedot-docs-snippets) prints it too.
        """

    let parsed: ParsedArguments

    package init(arguments: [String]) throws {
        parsed = try ParsedArguments(
            arguments, valueOptions: ["out", "config", "snippets", "check", "swift-runner", "node"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("docs takes no arguments") }
        switch (parsed.value("out"), parsed.value("check")) {
        case (nil, nil): throw UsageError("docs needs --out DIR or --check DIR")
        case (_?, _?): throw UsageError("docs takes --out DIR or --check DIR, not both")
        case (_?, nil):
            for option in ["swift-runner", "node"] where parsed.value(option) != nil {
                throw UsageError("--\(option) is for docs --check")
            }
        case (nil, _?):
            guard parsed.value("snippets") != nil, parsed.value("swift-runner") != nil else {
                throw UsageError("docs --check needs --snippets DIR and --swift-runner PATH")
            }
        }
    }

    package func run() throws -> Int32 {
        let docs = try ReferenceDocs()
        if let directory = parsed.value("check") {
            for path in [directory, parsed.value("snippets") ?? ""] where !Paths.isDirectory(path) {
                throw UsageError("docs --check: there is no directory \(path)")
            }
            let failures = try DocsCheck(docs: docs).run(
                pages: directory, snippets: parsed.value("snippets") ?? "", runner: parsed.value("swift-runner") ?? "",
                node: parsed.value("node") ?? "/usr/bin/node")
            guard failures.isEmpty else {
                StandardStreams.error(failures.map { "revenuedot docs --check: \($0)\n" }.joined())
                return 1
            }
            StandardStreams.out(
                "revenuedot docs --check: \(docs.pages.count) pages as generated; every JavaScript and Swift snippet "
                    + "prints what its page states\n")
            return 0
        }
        let targets = [(parsed.value("out"), docs.markdownFiles), (parsed.value("snippets"), docs.snippetFiles)]
            .compactMap { target, files in target.map { ($0, files) } }
        // Everything that would stop the writing half way is found before the first file.
        for (target, files) in targets { try Self.checkWritable(target, names: Array(files.keys)) }
        var written = 0
        for (target, files) in targets {
            let directory = URL(fileURLWithPath: target)
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                for (name, text) in files.sorted(by: { $0.key < $1.key }) {
                    try Data(text.utf8).write(to: directory.appendingPathComponent(name), options: .atomic)
                }
            } catch {
                throw CommandError("cannot write the pages into \(target): \(Self.reason(error))")
            }
            written += files.count
        }
        StandardStreams.out("wrote \(written) files\n")
        return 0
    }

    /// Refuses a `target` the pages `names` cannot all be written into: a file where the
    /// directory goes, a directory where a page goes, or a directory (or the one it would be
    /// made in) this user may not write.
    static func checkWritable(_ target: String, names: [String]) throws {
        let fileManager = FileManager.default
        var existing = URL(fileURLWithPath: target).standardizedFileURL
        while !fileManager.fileExists(atPath: existing.path) { existing.deleteLastPathComponent() }
        guard Paths.isDirectory(existing.path) else {
            throw CommandError("cannot write the pages into \(target): \(existing.path) is not a directory")
        }
        guard access(existing.path, W_OK | X_OK) == 0 else {
            throw CommandError("cannot write the pages into \(target): \(existing.path): \(String(cString: strerror(errno)))")
        }
        for name in names.sorted() where Paths.isDirectory((target as NSString).appendingPathComponent(name)) {
            throw CommandError("cannot write the pages into \(target): \(name) there is a directory")
        }
    }

    /// The system's reason for a failed write (Foundation wraps it in a multi-line description).
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return error.localizedDescription
    }
}
