import Foundation
import Testing

@testable import Server

/// What `revenuedot import` says besides its summary: progress lines (into a file or a pipe, a
/// log, one every 10 s and the last, not one per batch of rows), and the rows Apple does not know.
@Suite("Import's progress and lists")
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

    /// The rows Apple knows in no environment asked are listed beside the CSV, in its format; a
    /// new run lists its own.
    @Test func theRowsAppleDoesNotKnowAreListedBesideTheFile() throws {
        let world = try AppleAPIWorld()
        let file = try world.directory.write("subscribers.csv", try ImportTests.subscriptions(world, count: 2))
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        let run = try runCLI(["import", "--config", world.configPath, "--app", "demo", file])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("the 1 not found are listed in \(file).demo.not-found.csv"), "\(run.output)")
        let listed = try String(contentsOfFile: file + ".demo.not-found.csv", encoding: .utf8)
        #expect(listed == "original_transaction_id,app_user_id\n9999999999,ghost\n")
        #expect(try Import.rows(csv: listed) == [Import.Row(originalTransactionId: "9999999999", appUserId: "ghost")])
        // Everything found: no list left from before.
        let found = try world.directory.write("found.csv", "original_transaction_id\n7000000000\n")
        _ = try world.directory.write("found.csv.demo.not-found.csv", "stale")
        #expect(try runCLI(["import", "--config", world.configPath, "--app", "demo", found]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: found + ".demo.not-found.csv"))
    }

    /// A run killed after a batch used to lose the rows it had not listed: each batch's rows
    /// are listed before the checkpoint moves past them.
    @Test func aBatchIsListedBeforeTheCheckpointMovesPastIt() throws {
        let directory = TestDirectory("import-lists")
        let rows = (0..<6).map { Import.Row(originalTransactionId: String(9_000_000_000 + $0), appUserId: nil) }
        let checkpoint = directory.path("checkpoint")
        var listed: [(ids: [String], checkpoint: String)] = []
        let summary = Import.run(
            rows, concurrency: 2, checkpoint: checkpoint,
            list: { batch in
                let kept = Import.resumption(checkpoint: checkpoint, fingerprint: Import.fingerprint(rows))
                listed.append(
                    (
                        batch.notFound.map(\.originalTransactionId) + batch.failed.map(\.row.originalTransactionId),
                        kept.map { "\($0.done) \($0.note)" } ?? "none"
                    ))
            },
            // The caller's note, kept with each checkpoint: here, how many batches it listed.
            note: { "listed-\(listed.count)" },
            importRow: { row in row.originalTransactionId.hasSuffix("3") ? .failed("\(row.originalTransactionId): no") : .notFound
            })
        #expect(summary.notFound == 5)
        #expect(summary.failed == ["9000000003: no"])
        #expect(
            listed.map(\.ids) == [["9000000000", "9000000001"], ["9000000002", "9000000003"], ["9000000004", "9000000005"]])
        #expect(listed.map(\.checkpoint) == ["none", "2 listed-1", "4 listed-2"])
    }

    /// The run that resumes after a kill lists the rest: the lists are cut back to where the
    /// checkpoint says they ended, so a row behind it is listed once, in the list of its last
    /// outcome, the failures with their reason; import reads both back.
    @Test func aResumedRunListsEachRowOnceAndTheFailuresWithTheirReason() throws {
        let world = try AppleAPIWorld()
        let csv = try ImportTests.subscriptions(world, count: 2) + "9999999998,ghost2\n9999999997,\n"
        let file = try world.directory.write("subscribers.csv", csv)
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        // Killed after rows 1-3 were done (row 3 listed not found, the checkpoint past it) and
        // rows 4 and 5 listed not found, before the checkpoint moved past them.
        let rows = try Import.rows(csv: csv)
        let listed = "original_transaction_id,app_user_id\n9999999999,ghost\n"
        let checkpoint = Import.checkpointPath(databasePath: world.databasePath, appId: "demo", file: file)
        _ = FileManager.default.createFile(
            atPath: checkpoint, contents: Data("3 \(Import.fingerprint(rows)) \(listed.utf8.count),0\n".utf8))
        _ = try world.directory.write("subscribers.csv.demo.not-found.csv", listed + "9999999998,ghost2\n9999999997,\n")
        // Apple refuses the first row it is asked about now: row 4, listed not found before.
        world.store.inject(.status(400, code: 4_000_000, retryAfter: nil), count: 1)
        let run = try runCLI(["import", "--config", world.configPath, "--app", "demo", file, "--concurrency", "1"])
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("resuming at row 4 of 5"), "\(run.output)")
        #expect(run.output.contains("the 1 not found are listed in \(file).demo.not-found.csv"), "\(run.output)")
        #expect(run.output.contains("the 1 failed are listed in \(file).demo.failed.csv"), "\(run.output)")
        let notFound = try String(contentsOfFile: file + ".demo.not-found.csv", encoding: .utf8)
        #expect(notFound == listed + "9999999997,\n")
        let failed = try String(contentsOfFile: file + ".demo.failed.csv", encoding: .utf8)
        #expect(failed.hasPrefix("original_transaction_id,app_user_id,reason\n9999999998,ghost2,9999999998: "), "\(failed)")
        #expect(failed.contains("Apple answered 400"), "\(failed)")
        #expect(try Import.rows(csv: failed) == [Import.Row(originalTransactionId: "9999999998", appUserId: "ghost2")])
        // A new run starts both lists again.
        #expect(try runCLI(["import", "--config", world.configPath, "--app", "demo", file]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: file + ".demo.failed.csv"))
    }
}
