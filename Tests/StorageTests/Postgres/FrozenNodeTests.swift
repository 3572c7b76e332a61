import Foundation
import Testing
import Threads

@testable import Storage

/// A node frozen (stopped, swapping) or cut off while it holds the cluster-wide write lock: the
/// server ends its session once it has sat in its transaction past the limit, so the other
/// nodes' writes go on instead of waiting for it for good.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct FrozenNodeTests {
    @Test func sessionsFailDeadLinksAndIdleTransactionsInsteadOfWaiting() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        #expect(
            try connection.query("SHOW idle_in_transaction_session_timeout")
                == [[.text(PostgresConnection.idleInTransactionTimeout)]])
        let url = database.url
        for keyword in ["keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout"] {
            #expect(url.connectionParameters.contains { $0.0 == keyword }, "\(keyword)")
        }
    }

    @Test func aFrozenLockHolderNoLongerHoldsTheOthersWrites() throws {
        let database = try PostgresTestDatabase()
        let frozen = try database.connect()
        // The frozen node: inside a write transaction, holding the lock, saying nothing more.
        try frozen.execute(script: "BEGIN")
        _ = try frozen.query("SELECT pg_advisory_xact_lock(?)", [.integer(PostgresConnection.writeLockKey)])
        let other = try database.connect()
        let started = ContinuousClock.now
        try other.execute(script: "BEGIN")
        _ = try other.query("SELECT pg_advisory_xact_lock(?)", [.integer(PostgresConnection.writeLockKey)])
        try other.execute(script: "COMMIT")
        let waited = started.duration(to: .now)
        #expect(waited < .seconds(30), "\(waited)")
        #expect(waited > .seconds(10), "\(waited)")
        // The frozen node learns its session is gone when it wakes: nothing it wrote was committed.
        #expect(throws: StoreError.self) { try frozen.execute(script: "COMMIT") }
    }
}
