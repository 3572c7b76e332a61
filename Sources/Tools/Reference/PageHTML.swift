/// Reference pages as HTML for `revenuedot serve` at `/docs`: self-contained (the style is
/// inline; nothing is fetched from anywhere), the same sections as the Markdown pages.
enum PageHTML {
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// Escaped, with Markdown's `inline code` as <code>.
    static func inline(_ text: String) -> String {
        escape(text).split(separator: "`", omittingEmptySubsequences: false).enumerated().map {
            $0.offset % 2 == 1 ? "<code>\($0.element)</code>" : String($0.element)
        }.joined()
    }

    static let style = """
        body{font:16px/1.55 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;max-width:52rem;\
        margin:2rem auto;padding:0 1rem;color:#1d1d1f}h1{font-size:1.8rem;line-height:1.25}h2{margin-top:2.2rem;\
        border-bottom:1px solid #ddd;padding-bottom:.3rem}table{border-collapse:collapse;width:100%}td,th{border:1px solid \
        #ddd;padding:.4rem .6rem;text-align:left;vertical-align:top}code{background:#f3f3f5;padding:.1rem .3rem;\
        border-radius:4px;font-size:.9em}pre{background:#f6f8fa;padding:1rem;overflow-x:auto;border-radius:6px}pre code\
        {background:none;padding:0}.answer{font-size:1.15rem}.checked{color:#06623b}nav a{margin-right:1rem}\
        h1,h2,h3,td,th,li,p{overflow-wrap:anywhere}@media (max-width:30rem){body{margin:1rem auto}h1{font-size:1.4rem}\
        td,th{padding:.3rem .4rem}}
        """

    /// The id of a subtype's section: `subtype-grace-period`, or `no-subtype`.
    static func anchor(_ subtype: String?) -> String {
        subtype.map { "subtype-" + $0.lowercased().replacingOccurrences(of: "_", with: "-") } ?? "no-subtype"
    }

    static func document(title: String, body: [String]) -> String {
        ([
            "<!doctype html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            // No icon to fetch: a browser would ask for /favicon.ico and log its 404.
            "<link rel=\"icon\" href=\"data:,\">",
            "<title>\(escape(title))</title><style>\(style)</style></head><body>",
            "<nav><a href=\"/docs\">All notifications</a></nav>",
        ]
            + body + ["</body></html>"]).joined(separator: "\n") + "\n"
    }

    static func page(_ page: ReferencePage) -> String {
        var body = [
            "<h1>\(escape(page.question))</h1>", "<p class=\"answer\">\(inline(page.answer))</p>",
            "<h2 id=\"quick-facts\">Quick facts</h2>", "<table>",
        ]
        body += page.quickFacts.map { "<tr><th>\(escape($0.0))</th><td>\(inline($0.1))</td></tr>" }
        body += ["</table>", "<p>\(inline(page.meaning))</p>", "<h2 id=\"triggers\">What triggers it</h2>", "<ul>"]
        body += page.cases.map { "<li>\(inline($0.label)): \(inline($0.triggers.joined(separator: "; "))).</li>" }
        body += [
            "</ul>", "<h2 id=\"what-to-do\">What your server should do</h2>", "<ol>",
            "<li>\(inline(ReferencePage.verifyStep))</li>", "<li>Act on the subtype:<ul>",
        ]
        body += page.cases.map { "<li>\(inline($0.label)): \(inline($0.actions.joined(separator: " ")))</li>" }
        body += [
            "</ul></li>", "<li>\(inline(ReferencePage.answerStep))</li>", "<li>\(inline(ReferencePage.idempotencyStep))</li>",
        ]
        if !page.facts.seeAlso.isEmpty { body.append("<li>Next: \(inline(page.facts.seeAlso.joined(separator: " ")))</li>") }
        body.append("</ol>")
        body += page.facts.notes.map { "<p>\(inline($0))</p>" }
        body += [
            "<h2 id=\"example\">Example</h2>",
            "<p>What to do, decided from the decoded payload of a verified notification, in JavaScript and in Swift "
                + "(against RevenueDot's <code>AppStore</code> module):</p>",
            "<pre><code class=\"language-js\">\(escape(page.snippets.javaScript))</code></pre>",
            "<pre><code class=\"language-swift\">\(escape(page.snippets.swift))</code></pre>",
            "<p class=\"checked\">\(inline(PageMarkdown.runChecked(page.snippets)))</p>",
            "<h2 id=\"revenuedot\">\(PageMarkdown.handlingHeading)</h2>",
            "<p>\(inline(ReferencePage.handlingIntro))</p>",
        ]
        for kase in page.cases {
            body += [
                "<h3 id=\"\(Self.anchor(kase.subtype))\">\(escape(CatalogRenderer.title(page.type, kase.subtype)))</h3>",
                "<p>\(inline(kase.meaning))</p>",
                "<ul>",
            ]
            body += kase.handling.map { "<li>\(inline(String($0.dropFirst(2))))</li>" }
            body += [
                "</ul>", "<details><summary>Example notification (decoded; nested JWS shown decoded)</summary>",
                "<pre><code class=\"language-json\">\(escape(kase.example.serialized(pretty: true)))</code></pre></details>",
            ]
        }
        body += [
            "<h2 id=\"source\">Source</h2>",
            "<p>Checked against Apple's <a href=\"\(NotificationCatalog.appleTypesPage)\">notificationType</a> and "
                + "<a href=\"\(NotificationCatalog.appleSubtypesPage)\">subtype</a> pages and <a href=\""
                + "\(NotificationCatalog.appleRespondingPage)\">Responding to App Store Server Notifications</a> on "
                + "\(NotificationCatalog.checkedOn).</p>",
            "<p><a href=\"\(escape(page.editURL))\">Edit this page</a> · <a href=\"/docs/\(page.slug).md\">View as "
                + "Markdown</a></p>",
        ]
        return document(title: "\(page.type): \(page.question)", body: body)
    }

    static func index(_ pages: [ReferencePage]) -> String {
        var body = [
            "<h1>App Store Server Notifications V2: what each one means</h1>",
            "<p>What each notification means, what triggers it and what your server should do, with example code "
                + "that is run-checked, and what RevenueDot does with it.</p>",
        ]
        for group in AccessGroup.allCases {
            let members = pages.filter { $0.facts.access == group }
            guard !members.isEmpty else { continue }
            body += ["<h2 id=\"\(group.rawValue)\">\(escape(group.title))</h2>", "<p>\(escape(group.blurb))</p>", "<ul>"]
            body += members.map {
                let subtypes = $0.subtypeLabels == ["no subtype"] ? "" : " (\($0.subtypeLabels.joined(separator: ", ")))"
                return
                    "<li><a href=\"/docs/\($0.slug)\"><code>\($0.type)</code></a>\(inline(subtypes)): \(inline($0.answer))</li>"
            }
            body.append("</ul>")
        }
        return document(title: "App Store Server Notifications V2 reference", body: body)
    }
}
