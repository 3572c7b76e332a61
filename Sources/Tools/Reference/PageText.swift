/// A reference page as plain text for a terminal: `revenuedot explain TYPE [SUBTYPE]`.
enum PageText {
    static func page(_ page: ReferencePage) -> String {
        var lines = [page.question, String(repeating: "=", count: page.question.count), page.answer, "", "Quick facts:"]
        let width = page.quickFacts.map(\.0.count).max() ?? 0
        lines += page.quickFacts.map { "  " + $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + plain($0.1) }
        lines += ["", page.meaning, "", "What triggers it:"]
        lines += page.cases.map { "  - \($0.plainLabel): \($0.triggers.joined(separator: "; "))." }
        lines += ["", "What your server should do:", "  1. \(ReferencePage.verifyStep)", "  2. Act on the subtype:"]
        lines += page.cases.map { "     - \($0.plainLabel): \($0.actions.joined(separator: " "))" }
        lines += ["  3. \(plain(ReferencePage.answerStep))", "  4. \(plain(ReferencePage.idempotencyStep))"]
        if !page.facts.seeAlso.isEmpty { lines.append("  5. Next: \(page.facts.seeAlso.joined(separator: " "))") }
        for note in page.facts.notes { lines += ["", plain(note)] }
        lines += ["", "How RevenueDot handles it:", plain(ReferencePage.handlingIntro)]
        for kase in page.cases {
            lines += ["", "  \(CatalogRenderer.title(page.type, kase.subtype)): \(kase.meaning)"]
            lines += kase.handling.map { "    " + plain($0) }
        }
        lines += [
            "", "Example (JavaScript; `revenuedot explain \(page.type) --markdown` shows the Swift one too):", "",
            page.snippets.javaScript, "",
            "Run-checked: make docs-check runs it and compares its output with \"\(page.snippets.expected)\" "
                + "(checked \(NotificationCatalog.checkedOn)).",
            "", "Sources (checked \(NotificationCatalog.checkedOn)):", "  \(NotificationCatalog.appleTypesPage)",
            "  \(NotificationCatalog.appleSubtypesPage)", "  \(NotificationCatalog.appleRespondingPage)",
        ]
        if page.cases.count == 1, let only = page.cases.first {
            let others =
                NotificationCatalog.entry(page.type)?.cases.map { $0.name ?? "no subtype" }
                .filter { $0 != only.plainLabel } ?? []
            if !others.isEmpty { lines += ["Other subtypes: \(others.joined(separator: ", "))"] }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Markdown's inline code marks dropped.
    private static func plain(_ text: String) -> String { text.replacingOccurrences(of: "`", with: "") }
}
