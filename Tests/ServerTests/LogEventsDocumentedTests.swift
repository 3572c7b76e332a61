import Foundation
import Testing

/// Every event the server logs by name is in README's "Logs" table: an operator alerts on what
/// the table lists, so a line the table lacks is one nobody watches for.
@Suite struct LogEventsDocumentedTests {
    @Test func everyLoggedEventIsInTheReadmesTable() throws {
        let root = DeploymentFilesTests.packageRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let table = readme.components(separatedBy: "### Logs").dropFirst().first?.components(separatedBy: "\n### ").first
        let pattern = try NSRegularExpression(pattern: #"\blog\??\.(?:info|warning|error|debug)\(\s*"([a-z_.]+)""#)
        var names: Set<String> = []
        for folder in ["Sources/Server", "Sources/Tools"] {
            let base = root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
            for file in files ?? [] where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
                }
            }
        }
        #expect(names.count > 25, "the pattern no longer finds the log calls: \(names.sorted())")
        let missing = names.filter { !(table ?? "").contains("`\($0)`") }.sorted()
        #expect(missing.isEmpty, "logged but not in README's Logs table: \(missing)")
    }
}
