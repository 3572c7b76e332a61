import Testing

@testable import Tools

/// `revenuedot help`: the commands, or one command's options.
@Suite struct HelpTests {
    @Test func helpWithACommandIsThatCommandsHelp() throws {
        let general = try runCLI(["help"])
        #expect(general.status == 0)
        #expect(general.output == RevenueDotCLI.usage + "\n")
        let serve = try runCLI(["help", "serve"])
        #expect(serve.status == 0)
        #expect(serve.output == (try runCLI(["serve", "--help"])).output)
        #expect(serve.output.hasPrefix("usage: revenuedot serve"), "\(serve.output)")
        let unknown = try runCLI(["help", "serv"])
        #expect(unknown.status == 2)
        #expect(unknown.output.contains("unknown command \"serv\""), "\(unknown.output)")
    }
}
