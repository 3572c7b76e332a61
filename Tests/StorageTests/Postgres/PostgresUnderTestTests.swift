import Foundation
import Testing

@testable import Storage

/// Beside the cluster `make test` starts, every PostgreSQL test runs: a URL the tests could not
/// read or reach would otherwise turn them all off without a word (they are enabled only when
/// `PostgresTestDatabase.isAvailable`), and the contract suite would check SQLite alone.
@Suite struct PostgresUnderTestTests {
    @Test func theClusterMakeTestStartedIsReadAndReached() throws {
        guard let text = ProcessInfo.processInfo.environment["REVENUEDOT_TEST_POSTGRES_URL"] else { return }
        #expect(PostgresTestDatabase.isAvailable, "REVENUEDOT_TEST_POSTGRES_URL cannot be read: \(text)")
        #expect(ContractEngine.allCases == [.sqlite, .postgres])
        let database = try PostgresTestDatabase()
        let store = try Store(postgres: database.url)
        store.close()
    }
}
