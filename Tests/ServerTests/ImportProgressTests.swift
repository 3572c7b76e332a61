import Foundation
import Testing

@testable import Server

/// Progress lines of `revenuedot import`: into a file or a pipe (a log), one every 10 s and the
/// last, not one per batch of rows.
@Suite("Import's progress")
struct ImportProgressTests {
    @Test func aLogGetsALineNowAndThenAndTheLast() throws {
        let world = try AppleAPIWorld()
        let file = try world.directory.write("subscribers.csv", try ImportTests.subscriptions(world, count: 30))
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        // One row a batch: 31 batches, each of which used to write a line.
        let run = try runCLI(["import", "--config", world.configPath, "--app", "demo", file, "--concurrency", "1"])
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").filter { $0.contains(" ETA ") }
        #expect((2...4).contains(lines.count), "\(lines)")
        #expect(lines.last?.contains("31/31 (100%)") == true, "\(lines)")
    }
}
