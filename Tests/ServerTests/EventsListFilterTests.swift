import Foundation
import LoopbackClient
import Testing

@testable import Server

/// `events list --app ID` for an app id no configuration names: the events of an app since
/// removed are still listed, with a warning; none at all is a typo, said in one line, exit 1.
@Suite struct EventsListFilterTests {
    @Test func anUnconfiguredAppIsAWarningBesideItsEventsAndAnErrorWithout() throws {
        let fixture = try ServerFixture(demoOptions: #""trackNewPurchasesFromServerNotifications": true"#)
        let service = try fixture.startService()
        #expect(try LoopbackConnection(port: service.port).postNotification(try fixture.signer.notification()).status == 200)
        service.shutdown()
        let typo = try runCLI(["events", "list", "--app", "demmo", "--config", fixture.configPath])
        #expect(typo.status == 1)
        #expect(typo.output == #"revenuedot events: no app "demmo" is configured, and no event stored is of it"# + "\n")
        // The same database under a configuration that no longer has the app.
        let text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
            .replacingOccurrences(of: #""id": "demo""#, with: #""id": "renamed""#)
        let removed = try fixture.directory.write("removed.json", text)
        chmod(removed, 0o600)
        let kept = try runCLI(["events", "list", "--app", "demo", "--json", "--config", removed])
        #expect(kept.status == 0, "\(kept.output)")
        #expect(kept.output.hasPrefix(#"revenuedot events: warning: no app "demo" is configured"# + "\n"), "\(kept.output)")
        #expect(kept.output.contains(#""app_id":"demo""#), "\(kept.output)")
        // Its events exist, though none is dead: a warning and an empty list, not an error.
        let none = try runCLI(["events", "list", "--app", "demo", "--status", "dead", "--config", removed])
        #expect(none.status == 0, "\(none.output)")
        #expect(none.output.hasPrefix(#"revenuedot events: warning: no app "demo" is configured"#), "\(none.output)")
    }
}
