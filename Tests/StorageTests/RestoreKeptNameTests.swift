import Foundation
import Testing

@testable import Storage

/// Every database a restore replaces is kept, however many restores run in one second.
@Suite struct RestoreKeptNameTests {
    @Test func restoresInOneSecondKeepEveryReplacedDatabase() throws {
        let directory = try TemporaryDirectory()
        try RestoredPositionsTests.database(directory.databasePath, events: 1, prefix: "live")
        for name in ["first", "second"] {
            try RestoredPositionsTests.database(directory.path + "/\(name).sqlite", events: 1, prefix: name)
        }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var kept: [String] = []
        for name in ["first", "second", "first"] {
            let restored = try DatabaseBackup.restore(directory.path + "/\(name).sqlite", to: directory.databasePath, at: now)
            kept.append(try #require(restored.previous))
        }
        let stamp = directory.databasePath + ".before-restore-20270115T080000Z"
        #expect(kept == [stamp, stamp + "-2", stamp + "-3"])
        // Each holds what it replaced: the first database, then each restored copy in turn.
        #expect(
            try kept.map { Array(try RestoredPositionsTests.positions($0).events.keys) } == [["live1"], ["first1"], ["second1"]])
    }
}
