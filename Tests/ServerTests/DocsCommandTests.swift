import Foundation
import Testing

/// `revenuedot docs` given where it cannot write: one line, and not a page written.
@Suite struct DocsCommandTests {
    let directory = TestDirectory("docs-command")

    func docs(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runCLI(["docs"] + arguments, in: directory.path(""))
    }

    /// Everything in the test's directory, recursively, sorted.
    func contents() throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: directory.path("")).sorted()
    }

    @Test func whereThePagesCannotAllGoNothingIsWritten() throws {
        _ = try directory.write("file.json", "{}")
        try FileManager.default.createDirectory(atPath: directory.path("pages/expired.md"), withIntermediateDirectories: true)
        let before = try contents()
        let cases: [([String], String)] = [
            (["--out", "file.json"], "cannot write the pages into file.json: \(directory.path("file.json")) is not a directory"),
            (
                ["--out", "file.json/deeper"],
                "cannot write the pages into file.json/deeper: \(directory.path("file.json")) is not a directory"
            ),
            (["--out", "pages"], "cannot write the pages into pages: expired.md there is a directory"),
            (
                ["--out", "new", "--snippets", "file.json"],
                "cannot write the pages into file.json: \(directory.path("file.json")) is not a directory"
            ),
            (["--out", "new", "--check", "new"], "docs takes --out DIR or --check DIR, not both"),
            (["--out", "new", "--node", "/usr/bin/node"], "--node is for docs --check"),
            (["--check", "nowhere", "--snippets", "s", "--swift-runner", "r"], "docs --check: there is no directory nowhere"),
        ]
        for (arguments, message) in cases {
            let result = try docs(arguments)
            // A place it cannot write is no mistake in the command line: exit 1, no usage hint.
            let unwritable = message.hasPrefix("cannot write the pages")
            #expect(result.status == (unwritable ? 1 : 2), "\(arguments): \(result.output)")
            #expect(result.output.contains("--help shows its usage") == !unwritable, "\(arguments): \(result.output)")
            #expect(result.output.hasPrefix("revenuedot docs: \(message)\n"), "\(arguments): \(result.output)")
            #expect(try contents() == before, "\(arguments)")
        }
        let made = try docs(["--out", "new/pages", "--snippets", "new/snippets"])
        #expect(made.status == 0 && made.output.hasPrefix("wrote "), "\(made.output)")
        #expect(FileManager.default.fileExists(atPath: directory.path("new/pages/expired.md")))
    }
}
