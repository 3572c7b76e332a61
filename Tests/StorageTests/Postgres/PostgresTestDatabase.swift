import Foundation
import Testing

@testable import Storage

/// A fresh database on the throwaway cluster `make test` starts (`scripts/with-postgres.sh`),
/// dropped when this goes away.
final class PostgresTestDatabase: Sendable {
    /// The cluster's URL, from `REVENUEDOT_TEST_POSTGRES_URL`; nil when the tests run without one.
    static let cluster: PostgresURL? = ProcessInfo.processInfo.environment["REVENUEDOT_TEST_POSTGRES_URL"].flatMap {
        try? PostgresURL($0, environment: [:])
    }

    /// For `@Suite(.enabled(if:))`: PostgreSQL tests run only beside a cluster (`make test` starts one).
    static var isAvailable: Bool { cluster != nil }

    let url: PostgresURL

    init() throws {
        let cluster = try #require(Self.cluster, "REVENUEDOT_TEST_POSTGRES_URL is not set: run the tests with make test")
        let name = "rd_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresDatabases.create(name, on: cluster)
        url = cluster.with(database: name)
    }

    deinit {
        guard let cluster = Self.cluster else { return }
        try? PostgresDatabases.drop(url.database, on: cluster)
    }

    func connect() throws -> PostgresConnection { try PostgresConnection(url: url) }
}
