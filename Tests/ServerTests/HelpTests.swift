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

    /// An option before the command says where it goes; a story's near miss is suggested, a
    /// name with nothing in common is not.
    @Test func misplacedOptionsAndUnknownNamesSayWhatToDo() throws {
        let early = try runCLI(["--config", "revenuedot.json", "serve"])
        #expect(early.status == 2)
        #expect(early.output.hasPrefix("revenuedot: --config comes after the command it is for"), "\(early.output)")
        let foo = try runCLI(["simulate", "foo"])
        #expect(foo.status == 2)
        #expect(foo.output.hasPrefix("revenuedot simulate: unknown story \"foo\"\n"), "\(foo.output)")
        let near = try runCLI(["simulate", "lifecyle"])
        #expect(near.output.contains("did you mean lifecycle"), "\(near.output)")
    }
}
