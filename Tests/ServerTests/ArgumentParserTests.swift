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
