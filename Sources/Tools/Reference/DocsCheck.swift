import Foundation

/// `make docs-check`: the reference pages and Swift snippets on disk are what this build writes,
/// and every page's example code prints the output the page states: its JavaScript run with
/// Node, its Swift compiled into `revenuedot-docs-snippets` and run. Each problem is one line.
struct DocsCheck {
    let docs: ReferenceDocs

    func run(pages: String, snippets: String, runner: String, node: String) throws -> [String] {
        var failures = drift(docs.markdownFiles, in: pages, fix: "revenuedot docs --out \(pages)")
        failures += drift(docs.snippetFiles, in: snippets, fix: "revenuedot docs --out \(pages) --snippets \(snippets)")
        var stated: [String: String] = [:]
        for page in docs.pages {
            let name = "\(pages)/\(page.slug).md"
            guard let text = try? String(contentsOfFile: name, encoding: .utf8) else {
                failures.append("\(name) cannot be read")
                continue
            }
            guard let expected = Self.statedOutput(in: text) else {
                failures.append("\(name) states no run-checked output")
                continue
            }
            stated[page.type] = expected
            guard let javaScript = Self.block("js", in: text) else {
                failures.append("\(name) has no JavaScript example")
                continue
            }
            let (status, output) = try Self.execute(node, ["-e", javaScript])
            if status != 0 || output != expected + "\n" {
                failures.append(
                    "\(name): its JavaScript prints \(Self.quoted(output)) (exit \(status)), the page states \(Self.quoted(expected))"
                )
            }
            let file = "\(snippets)/\(ReferenceSnippets.swiftFileName(page.type))"
            if Self.block("swift", in: text).map({ $0 + "\n" }) != (try? String(contentsOfFile: file, encoding: .utf8)) {
                failures.append("\(name): its Swift example is not \(file), which is the one compiled and run")
            }
        }
        let (status, output) = try Self.execute(runner, [])
        guard status == 0 else { return failures + ["\(runner) exited \(status): \(output)"] }
        var printed: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            if parts.count == 2 { printed[parts[0]] = parts[1] }
        }
        for page in docs.pages {
            guard let expected = stated[page.type] else { continue }
            if printed[page.type] != expected {
                failures.append(
                    "\(pages)/\(page.slug).md: its Swift snippet prints \(Self.quoted(printed[page.type] ?? "nothing")), "
                        + "the page states \(Self.quoted(expected))")
            }
        }
        return failures
    }

    /// The files of `directory` that differ from `expected` (missing ones included).
    private func drift(_ expected: [String: String], in directory: String, fix: String) -> [String] {
        expected.keys.sorted().compactMap { name in
            let path = "\(directory)/\(name)"
            return (try? String(contentsOfFile: path, encoding: .utf8)) == expected[name]
                ? nil : "\(path) is not what this build writes (run \(fix))"
        }
    }

    /// The output a page states after "compares its output with `".
    static func statedOutput(in page: String) -> String? {
        guard let start = page.range(of: PageMarkdown.runCheckedPrefix) else { return nil }
        guard let end = page[start.upperBound...].firstIndex(of: "`") else { return nil }
        return String(page[start.upperBound..<end])
    }

    /// The first fenced code block in `language`, without its fences and last line break.
    static func block(_ language: String, in page: String) -> String? {
        guard let start = page.range(of: "```\(language)\n"),
            let end = page[start.upperBound...].range(of: "```")
        else { return nil }
        var code = String(page[start.upperBound..<end.lowerBound])
        if code.hasSuffix("\n") { code.removeLast() }
        return code
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.trimmingCharacters(in: .newlines).replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    /// Runs `executable` with `arguments`; its exit status and standard output and error.
    static func execute(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (127, "\(executable) cannot be run: \(error.localizedDescription)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
