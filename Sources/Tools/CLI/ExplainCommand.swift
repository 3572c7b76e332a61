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
