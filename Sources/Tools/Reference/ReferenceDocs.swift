import Foundation
import HTTP
import Server
import Threads

/// Every reference page, built once (each case's example signed, verified and applied), and
/// the files and HTTP answers made from them.
final class ReferenceDocs: Sendable {
    let pages: [ReferencePage]

    init() throws {
        let renderer = try CatalogRenderer()
        pages = try NotificationCatalog.entries.map { try ReferencePage(entry: $0, renderer: renderer) }
    }

    /// The page of `type` (any case), or nil.
    func page(_ type: String) -> ReferencePage? {
        pages.first { $0.type.caseInsensitiveCompare(type) == .orderedSame }
    }

    /// `docs/notifications`: the index (README.md) and one Markdown page per type.
    var markdownFiles: [String: String] {
        var files = ["README.md": PageMarkdown.index(pages)]
        for page in pages { files[page.slug + ".md"] = PageMarkdown.page(page) }
        return files
    }

    /// `docs/snippets/swift`, the `revenuedot-docs-snippets` target: each page's Swift snippet and
    /// the runner that runs them.
    var snippetFiles: [String: String] {
        var files = ["main.swift": ReferenceSnippets.runner(pages.map(\.snippets))]
        for page in pages { files[ReferenceSnippets.swiftFileName(page.type)] = page.snippets.swift }
        return files
    }

    /// The answer to `GET /docs/NAME` (`""` for `/docs`): the index or a page as HTML, or as
    /// Markdown (`NAME.md`, `README.md` for the index), a page named by its slug or its type in
    /// any case (`expired`, `EXPIRED`, `Expired`); nil for a page that does not exist.
    func answer(_ name: String) -> HTTPResponse? {
        let lowered = name.lowercased()
        if lowered.isEmpty || lowered == "index.html" {
            return .text(PageHTML.index(pages), contentType: "text/html; charset=utf-8")
        }
        if lowered == "readme.md" || lowered == "index.md" {
            return .text(PageMarkdown.index(pages), contentType: "text/markdown; charset=utf-8")
        }
        if lowered.hasSuffix(".md") {
            guard let page = named(String(lowered.dropLast(3))) else { return nil }
            return .text(PageMarkdown.page(page), contentType: "text/markdown; charset=utf-8")
        }
        guard let page = named(lowered) else { return nil }
        return .text(PageHTML.page(page), contentType: "text/html; charset=utf-8")
    }

    /// The page whose slug or type is `lowered` (a lower-cased name).
    private func named(_ lowered: String) -> ReferencePage? {
        pages.first { $0.slug == lowered || $0.type.lowercased() == lowered }
    }

    /// The pages for `serve`, built at the first request and kept.
    static let shared = Locked<ReferenceDocs?>(nil)

    /// What `serve` routes `/docs` to.
    static let serve: @Sendable (String) -> HTTPResponse? = { name in
        let docs = shared.withLock { docs -> ReferenceDocs? in
            if docs == nil { docs = try? ReferenceDocs() }
            return docs
        }
        return docs?.answer(name)
    }
}
