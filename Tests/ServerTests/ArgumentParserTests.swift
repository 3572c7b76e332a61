import Foundation
import Server
import Testing
import Tools

@Suite struct ArgumentParserTests {
    @Test func optionsFlagsAndPositionals() throws {
        let parsed = try ParsedArguments(
            ["list", "--limit", "5", "--json", "--type=EXPIRED", "-", "--", "--not-an-option"], valueOptions: ["limit", "type"],
            flagOptions: ["json"])
        #expect(parsed.value("limit") == "5")
        #expect(parsed.value("type") == "EXPIRED")
        #expect(parsed.flags == ["json"])
        #expect(parsed.positionals == ["list", "-", "--not-an-option"])
    }

    /// An option given without its value says so, also when another option follows it.
    @Test(arguments: [["--limit"], ["--limit", "--config", "x.json"]])
    func anOptionWithoutItsValueSaysSo(arguments: [String]) throws {
        #expect(throws: UsageError.self) { try ParsedArguments(arguments, valueOptions: ["limit", "config"], flagOptions: []) }
        do {
            _ = try ParsedArguments(arguments, valueOptions: ["limit", "config"], flagOptions: [])
        } catch {
            #expect(error.description == "--limit needs a value")
        }
        #expect(try ParsedArguments(["--limit=--x"], valueOptions: ["limit"], flagOptions: []).value("limit") == "--x")
    }
}

extension ArgumentParserTests {
    /// An empty value names nothing: `docs --out ""` wrote the pages where it ran, over a README.
    @Test(arguments: [["--out", ""], ["--out="]])
    func anEmptyValueIsRefused(arguments: [String]) throws {
        let error = #expect(throws: UsageError.self) {
            try ParsedArguments(arguments, valueOptions: ["out"], flagOptions: [])
        }
        #expect(error?.description == "--out needs a value, not an empty one")
    }

    /// `docs --out ""` through the binary: refused, and nothing is written where it runs.
    @Test func docsWithAnEmptyOutWritesNothing() throws {
        let directory = TestDirectory("docs-empty-out")
        _ = try directory.write("README.md", "mine\n")
        let result = try runCLI(["docs", "--out", ""], in: directory.path(""))
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("revenuedot docs: --out needs a value, not an empty one\n"), "\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("")) == ["README.md"])
        #expect(try String(contentsOfFile: directory.path("README.md"), encoding: .utf8) == "mine\n")
    }
}

extension ArgumentParserTests {
    /// An option given twice is refused unless the command takes several: `restore --config a
    /// --config b` restored into b, the one the user may not have meant.
    @Test func anOptionGivenTwiceIsRefusedUnlessItRepeats() throws {
        let error = #expect(throws: UsageError.self) {
            try ParsedArguments(["--config", "a.json", "--config=b.json"], valueOptions: ["config"], flagOptions: [])
        }
        #expect(error?.description == "--config is given twice (a.json and b.json): give it once")
        let repeated = try ParsedArguments(
            ["--root-cert", "a.pem", "--root-cert", "b.pem"], valueOptions: ["root-cert"], flagOptions: [],
            repeatable: ["root-cert"])
        #expect(repeated.values("root-cert") == ["a.pem", "b.pem"])
    }

    /// Through the binary: a restore naming two configurations changes nothing.
    @Test func restoreWithTwoConfigurationsChangesNothing() throws {
        let directory = TestDirectory("restore-two-configs")
        let result = try runCLI(
            ["restore", "backup.sqlite", "--config", "a.json", "--config", "b.json"], in: directory.path(""))
        #expect(result.status == 2, "\(result.output)")
        #expect(
            result.output.hasPrefix("revenuedot restore: --config is given twice (a.json and b.json): give it once\n"),
            "\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("")).isEmpty)
    }
}
