import Foundation
import PostgresFixtures
import Testing

@testable import Server
@testable import Storage

/// A reload while PostgreSQL is down: the pass over held and failed notifications cannot read
/// them, and says so in one line rather than counting notifications that are not there.
@Suite(.enabled(if: TestCluster.url != nil))
struct ReloadWhileDatabaseDownTests {
    @Test func theHeldPassSaysOnceThatItCouldNotRead() throws {
        let cluster = try PrivateCluster()
        try PostgresDatabases.create("rd_reload", on: try cluster.url())
        let url = try cluster.url(database: "rd_reload")
        let fixture = try ServerFixture(database: "\"\(PostgresCommandsTests.withPassword(url))\"")
        let (service, kept) = try OperationalLogTests.service(fixture)
        defer {
            try? cluster.start()
            service.shutdown()
        }
        service.waitForHeldNotifications()
        try cluster.stop()
        _ = service.reload(from: fixture.configPath)
        service.waitForHeldNotifications()
        let failed = OperationalLogTests.lines(kept, event: "notification.apply_failed")
        #expect(failed.count == 1, "\(failed)")
        #expect(failed.first?.contains("could not be read, so none was taken up") == true, "\(failed)")
        #expect(OperationalLogTests.lines(kept, event: "notification.reapplied").isEmpty)
    }
}
