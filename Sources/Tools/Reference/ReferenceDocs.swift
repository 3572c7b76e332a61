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

    /// The answers to `GET /docs/NAME` (`""` for `/docs`), by lower-cased NAME, rendered at once:
    /// the index or a page as HTML, or as Markdown (`NAME.md`, `README.md` for the index), a page
    /// named by its slug or its type in any case (`expired`, `EXPIRED`, `Expired`). The pages
    /// are served without a key on the notification URL's listener, where rendering per request
    /// would be work anyone could ask for.
    var httpAnswers: [String: HTTPResponse] {
        var answers: [String: HTTPResponse] = [:]
        let html = "text/html; charset=utf-8"
        let markdown = "text/markdown; charset=utf-8"
        let index = HTTPResponse.text(PageHTML.index(pages), contentType: html)
        let indexMarkdown = HTTPResponse.text(PageMarkdown.index(pages), contentType: markdown)
        for name in ["", "index.html"] { answers[name] = index }
        for name in ["readme.md", "index.md"] { answers[name] = indexMarkdown }
        // In page order, the first page to take a name keeps it, as a search in that order would.
        for page in pages {
            let pageHTML = HTTPResponse.text(PageHTML.page(page), contentType: html)
            let pageMarkdown = HTTPResponse.text(PageMarkdown.page(page), contentType: markdown)
            for name in [page.slug, page.type.lowercased()] where answers[name] == nil {
                answers[name] = pageHTML
                answers[name + ".md"] = pageMarkdown
            }
        }
        return answers
    }

    /// The answers for `serve`, made at the first request and kept; or why they could not be
    /// made, kept too (it would fail the same way again).
    static let shared = Locked<Result<[String: HTTPResponse], Unbuilt>?>(nil)

    struct Unbuilt: Error { let answer: HTTPResponse }

    /// What `serve` routes `/docs` to: nil for a page that does not exist; 503 for every page
    /// when they could not be built, saying why.
    static let serve: @Sendable (String) -> HTTPResponse? = { name in
        let built = shared.withLock { built -> Result<[String: HTTPResponse], Unbuilt> in
            if let built { return built }
            let made: Result<[String: HTTPResponse], Unbuilt>
            do { made = .success(try ReferenceDocs().httpAnswers) } catch {
                made = .failure(
                    Unbuilt(
                        answer: .error(
                            status: 503, code: "docs_unavailable", message: "the reference pages could not be built: \(error)")))
            }
            built = made
            return made
        }
        switch built {
        case .success(let answers): return answers[name.lowercased()]
        case .failure(let unbuilt): return unbuilt.answer
        }
    }
}
