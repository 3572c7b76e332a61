import Foundation
import Testing

/// The README and the pages under docs/ point only at files a clone of the repository has.
@Suite struct DocumentationLinksTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().standardizedFileURL

    /// Markdown link targets (`[text](target)`) that are not web addresses or anchors, and
    /// paths written as code that name a Markdown file (`` `docs/architecture.md` ``).
    static func relativeTargets(in text: String) -> [String] {
        var targets: [String] = []
        for pattern in [#"\]\(([^)\s]+)\)"#, #"`([^`\s]+\.md)`"#] {
            let expression = try! NSRegularExpression(pattern: pattern)
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let target = String(text[range].split(separator: "#", omittingEmptySubsequences: false)[0])
                if target.isEmpty || target.contains("://") || target.hasPrefix("mailto:") { continue }
                targets.append(target)
            }
        }
        return targets
    }

    @Test(arguments: [
        "README.md", "docs/architecture.md", "docs/notifications/README.md", "docs/advanced-commerce/README.md",
    ])
    func everyRelativeTargetIsInTheRepository(page: String) throws {
        let file = Self.root.appendingPathComponent(page)
        let text = try String(contentsOf: file, encoding: .utf8)
        let targets = Self.relativeTargets(in: text)
        #expect(page != "README.md" || targets.count > 1, "found the links of \(page)")
        for target in targets {
            // A path in code is the repository's (`docs/architecture.md`); a link is the page's.
            let fromRoot = Self.root.appendingPathComponent(target).standardizedFileURL
            let fromPage = file.deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL
            let inside = [fromRoot, fromPage].filter { $0.path.hasPrefix(Self.root.path + "/") }
            #expect(
                inside.contains { FileManager.default.fileExists(atPath: $0.path) },
                "\(page) points at \(target), which a clone does not have")
        }
    }
}
