import AppStore
import Foundation
import Server

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
