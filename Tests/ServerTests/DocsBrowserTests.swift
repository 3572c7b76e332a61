import Foundation
import Testing

@testable import Server
@testable import Tools

/// `/docs` in a real browser: headless Chromium, driven by Selenium (`Tests/Browser/docs_pages.py`),
/// walks the index and every page it links as a reader would. `make test` installs Chromium,
/// its driver and Selenium from Debian.
@Suite(.enabled(if: TestTool.runs("/usr/bin/chromedriver"), "needs chromium-driver"))
struct DocsBrowserTests {
    @Test func everyPageReadsInABrowserAndLoadsNothingFromElsewhere() throws {
        let fixture = try ServerFixture()
        let service = try RevenueDotService(config: try fixture.config(), log: { _ in }, docs: ReferenceDocs.serve)
        try service.start()
        defer { service.shutdown() }
        let script = NotificationReferenceTests.packageRoot.appendingPathComponent("Tests/Browser/docs_pages.py").path
        let (status, output) = try DeploymentFilesTests.run("/usr/bin/python3", [script, "http://127.0.0.1:\(service.port)"])
        #expect(status == 0, "\(output)")
        #expect(output.hasSuffix("ok 23 pages\n"), "\(output)")
    }
}
