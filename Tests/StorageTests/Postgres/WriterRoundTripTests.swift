import Foundation
import Testing

@testable import Storage

/// What a group-committed transaction costs in round trips to PostgreSQL, however many
/// notifications it holds: `BEGIN`, the write lock, the stored lookups and the ledger's reads
/// ahead go in one (`WriterConnection.beginWrite(opening:)`), the writes are sent ahead, and the
/// commit waits for them. With two nodes the write lock is held for the whole transaction, so
/// each round trip saved is time the other node no longer waits.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct WriterRoundTripTests {
    /// Writes `records` in one batch through `writer` (the queue holds them all before it
    /// starts); their outcomes, and the round trips the batch took.
    static func batch(_ records: [NotificationRecord], through writer: Writer) throws -> ([StoreOutcome], Int) {
        let queue = WriteQueue()
        let completions = records.map { record in
            let completion = Completion<StoreOutcome>()
            let payload = StoredPayload(frame: Zstd.compress(Data(record.signedPayload.utf8), with: nil), dictionary: nil)
            #expect(queue.enqueue(.store(NotificationWrite(record: record, payload: payload), completion)))
            return completion
        }
        queue.close()
        let connection = try #require(writer.connection as? PostgresConnection)
        let before = connection.roundTrips
        writer.run(queue: queue, maxBatch: 64)
        return (try completions.map { try $0.wait().get() }, connection.roundTrips - before)
    }

    @Test func aBatchTakesTwoRoundTripsWhateverItHolds() throws {
        let database = try PostgresTestDatabase()
        let writer = try Writer.postgres(
            url: database.url, use: .shared, handOff: SeveralNodesTests.handOff(), onCommit: nil, onRejectsFailed: nil)
        // Six customers each buy, then renew three times: batch n holds everyone's n-th.
        let records = try SeveralNodesTests.records()
        let rounds = (0..<4).map { round in stride(from: round, to: records.count, by: 4).map { records[$0] } }
        // The first two prepare the statements, which costs a round trip each, once per connection.
        for round in rounds.prefix(2) {
            let (outcomes, _) = try Self.batch(round, through: writer)
            #expect(outcomes == round.map { _ in .stored })
        }
        // Six renewals, with a copy of a notification stored earlier and one of its own.
        let (outcomes, roundTrips) = try Self.batch(rounds[2] + [records[0], rounds[2][0]], through: writer)
        #expect(outcomes == rounds[2].map { _ in .stored } + [.duplicate, .duplicate])
        #expect(roundTrips == 2, "begin with the lookups and reads ahead, then the commit")
        // However many it holds.
        let (last, lastRoundTrips) = try Self.batch(rounds[3] + [records[1]], through: writer)
        #expect(last == rounds[3].map { _ in .stored } + [.duplicate])
        #expect(lastRoundTrips == 2)
        // The app's webhook got every event, each delivery sent ahead with its event.
        let connection = try database.connect()
        let counts = try connection.query("SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM deliveries)")
        #expect(counts.first?.first == counts.first?.last && (counts.first?.first?.integerValue ?? 0) >= Int64(records.count))
    }
}
