import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// The reference pages in our docs' shape: `explain`, the Markdown files, `/docs`, and the
/// run-checked example code.
@Suite struct ReferencePagesTests {
    static let root = NotificationReferenceTests.packageRoot

    @Test func explainPrintsTheWholePageWithEverySubtype() throws {
        let result = try runCLI(["explain", "EXPIRED"])
        #expect(result.status == 0, "\(result.output)")
        for text in [
            "What does the App Store notification EXPIRED mean?", "Quick facts:", "notificationType  EXPIRED",
            "Comes from", "responseBodyV2DecodedPayload", "Apple says", "What triggers it:", "- VOLUNTARY:",
            "- BILLING_RETRY:", "- PRICE_INCREASE:", "- PRODUCT_NOT_FOR_SALE:", "- no subtype:",
            "1, 12, 24, 48 and 72 hours", "idempotent on notificationUUID", "SUBSCRIBED with subtype RESUBSCRIBE",
            "EXPIRED / VOLUNTARY:", "EXPIRED / BILLING_RETRY:", "expiration_reason BILLING_ERROR", "Run-checked",
        ] {
            #expect(result.output.contains(text), "\(text)")
        }
    }

    @Test func aSubtypeNarrowsThePageAndNoneNamesTheCaseWithout() throws {
        let narrowed = try runCLI(["explain", "expired", "billing_retry"])
        #expect(narrowed.status == 0)
        #expect(narrowed.output.contains("- BILLING_RETRY:") && !narrowed.output.contains("- VOLUNTARY:"))
        #expect(narrowed.output.contains("Other subtypes: VOLUNTARY, PRICE_INCREASE, PRODUCT_NOT_FOR_SALE, no subtype"))
        // The quick facts still list every subtype of the type.
        #expect(narrowed.output.contains("Subtypes          VOLUNTARY, BILLING_RETRY, PRICE_INCREASE"), "\(narrowed.output)")
        let none = try runCLI(["explain", "EXPIRED", "none", "--json"])
        let page = try JSONValue(parsing: Data(none.output.utf8))
        let cases = page["cases"]?.arrayValue ?? []
        #expect(cases.count == 1 && cases.first?["subtype"] == .null, "\(none.output)")
        #expect(page["quickFacts"]?["Subtypes"]?.stringValue?.hasPrefix("`VOLUNTARY`, `BILLING_RETRY`") == true)
        let both = try runCLI(["explain", "EXPIRED", "--json", "--markdown"])
        #expect(both.status == 2)
    }

    @Test func markdownIsThePageFileAndJSONHasEverySection() throws {
        let markdown = try runCLI(["explain", "DID_CHANGE_RENEWAL_PREF", "--markdown"])
        let file = try String(
            contentsOf: Self.root.appendingPathComponent("docs/notifications/did-change-renewal-pref.md"), encoding: .utf8)
        #expect(markdown.output == file)
        let json = try JSONValue(parsing: Data(try runCLI(["explain", "DID_CHANGE_RENEWAL_PREF", "--json"]).output.utf8))
        for key in [
            "question", "answer", "quickFacts", "cases", "whatYourServerShouldDo", "seeAlso", "notes", "example", "source",
        ] {
            #expect(json[key] != nil, "\(key)")
        }
        #expect(json["cases"]?.arrayValue?.count == 3)
        #expect(json["example"]?["expectedOutput"]?.stringValue?.isEmpty == false)
    }

    /// Every page has the sections of our docs pages, in order.
    @Test func everyPageHasTheSectionsInOrder() throws {
        let docs = try ReferenceDocs()
        #expect(docs.pages.count == 23)
        for (name, text) in docs.markdownFiles where name != "README.md" {
            let headings = text.split(separator: "\n").filter { $0.hasPrefix("## ") }.map(String.init)
            #expect(
                headings == [
                    "## Quick facts", "## What triggers it", "## What your server should do", "## Example",
                    "## How RevenueDot handles it", "## Source",
                ], "\(name)")
            #expect(text.hasPrefix("# What does the App Store notification "), "\(name)")
            #expect(text.contains("```js\n") && text.contains("```swift\n"), "\(name)")
            #expect(text.contains("[Edit this page](https://") && text.contains("[View as Markdown]("), "\(name)")
            #expect(text.contains("200 to 206") && text.contains("1, 12, 24, 48 and 72 hours"), "\(name)")
        }
        let index = try #require(docs.markdownFiles["README.md"])
        for group in AccessGroup.allCases { #expect(index.contains("## \(group.title)"), "\(group)") }
    }

    /// The published pages' claims for DID_CHANGE_RENEWAL_PREF and EXPIRED, each on its page.
    @Test func didChangeRenewalPrefAndExpiredSayWhatTheirPublishedPagesSay() throws {
        func page(_ slug: String) throws -> String {
            try String(contentsOf: Self.root.appendingPathComponent("docs/notifications/\(slug).md"), encoding: .utf8)
        }
        let preference = try page("did-change-renewal-pref")
        for claim in [
            "immediate", "new period", "pro rata", "waits for the next renewal",
            "cross-grade to a product of another duration, which counts as a downgrade",
            "reverts a pending downgrade", "autoRenewProductId", "PRODUCT_CHANGE", "RENEWAL on the new product",
        ] {
            #expect(preference.contains(claim), "DID_CHANGE_RENEWAL_PREF: \(claim)")
        }
        let expired = try page("expired")
        for claim in [
            "`VOLUNTARY`", "`BILLING_RETRY`", "`PRICE_INCREASE`", "`PRODUCT_NOT_FOR_SALE`", "no subtype",
            "Each subtype overrides the type", "the scheduler records EXPIRATION", "grace period",
            "expiration_reason comes from the stored state", "The customer's data is kept",
            "SUBSCRIBED with subtype RESUBSCRIBE", "Track new purchases from server-to-server notifications",
        ] {
            #expect(expired.contains(claim), "EXPIRED: \(claim)")
        }
    }

    /// `make docs-check`'s check, run here too: every snippet prints what its page states; and it
    /// fails when a page's stated output, its JavaScript or its Swift drifts.
    @Test func docsCheckRunsTheSnippetsAndCatchesDrift() throws {
        let runner = ChildServer.executable.deletingLastPathComponent().appendingPathComponent("revenuedot-docs-snippets").path
        let docs = try ReferenceDocs()
        let check = DocsCheck(docs: docs)
        let pages = Self.root.appendingPathComponent("docs/notifications").path
        let snippets = Self.root.appendingPathComponent("docs/snippets/swift").path
        #expect(try check.run(pages: pages, snippets: snippets, runner: runner, node: "/usr/bin/node") == [])

        let copy = TestDirectory("docs-check")
        for (name, text) in docs.markdownFiles { _ = try copy.write(name, text) }
        let page = copy.path("expired.md")
        let text = try String(contentsOfFile: page, encoding: .utf8)
        try text.replacingOccurrences(of: "with `Revoke the entitlement.`", with: "with `Keep the entitlement.`")
            .write(toFile: page, atomically: true, encoding: .utf8)
        let failures = try check.run(pages: copy.url.path, snippets: snippets, runner: runner, node: "/usr/bin/node")
        #expect(failures.contains { $0.contains("expired.md: its JavaScript prints \"Revoke the entitlement.\"") }, "\(failures)")
        #expect(failures.contains { $0.contains("expired.md: its Swift snippet prints") }, "\(failures)")
        #expect(failures.contains { $0.contains("expired.md is not what this build writes") }, "\(failures)")
    }

    @Test func serveServesThePagesAsHTMLAndMarkdownWithNothingExternal() throws {
        let fixture = try ServerFixture()
        let service = try RevenueDotService(config: try fixture.config(), log: { _ in }, docs: ReferenceDocs.serve)
        try service.start()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let index = try connection.request("GET", "/docs")
        #expect(index.status == 200)
        #expect(index.headers["content-type"] == "text/html; charset=utf-8")
        let html = String(decoding: index.body, as: UTF8.self)
        for group in AccessGroup.allCases { #expect(html.contains(">\(group.title)</h2>"), "\(group)") }
        #expect(html.contains("href=\"/docs/expired\""))
        let page = try connection.request("GET", "/docs/expired")
        let text = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200 && text.contains("<h1>What does the App Store notification EXPIRED mean?</h1>"))
        #expect(text.contains("<code class=\"language-swift\">") && text.contains("Run-checked"))
        // Nothing is loaded from elsewhere: no script, stylesheet or image source; the one link is
        // an empty inline icon, so that a browser asks for no /favicon.ico.
        let links = text.components(separatedBy: "<link").dropFirst()
        #expect(links.count == 1 && links.first?.hasPrefix(#" rel="icon" href="data:,">"#) == true)
        #expect(!text.contains("<script") && !text.contains("src="))
        #expect(text.contains(#"<h3 id="subtype-voluntary">"#) && text.contains(#"<h3 id="no-subtype">"#))
        let markdown = try connection.request("GET", "/docs/expired.md")
        #expect(markdown.status == 200 && markdown.headers["content-type"] == "text/markdown; charset=utf-8")
        #expect(try connection.request("GET", "/docs/nope").status == 404)
        // A type as Apple spells it, or in any case, and the Markdown index.
        for name in ["EXPIRED", "Expired", "EXPIRED.md", "did_change_renewal_pref"] {
            #expect(try connection.request("GET", "/docs/\(name)").status == 200, "\(name)")
        }
        let readme = try connection.request("GET", "/docs/README.md")
        #expect(readme.status == 200 && String(decoding: readme.body, as: UTF8.self).contains("| [EXPIRED](expired.md) |"))
        #expect(html.contains("<code>EXPIRED</code></a> (<code>VOLUNTARY</code>, "))
    }
}
