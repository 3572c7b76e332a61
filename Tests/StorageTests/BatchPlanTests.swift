import Testing

@testable import Storage

/// The writer's batch decisions (`BatchPlan`), as tables: items in, actions and endings out.
@Suite("Batch plan")
struct BatchPlanTests {
    /// One item of a table: a health check or a write, and whether applying it fails.
    enum Item { case health, write, failingWrite }

    /// Feeds `items` to a plan as the writer would; returns the actions, the room after, the ending.
    static func run(_ items: [Item], maxBatch: Int = 4, commitFails: Bool = false)
        -> (actions: [BatchPlan.Action], room: Int, ending: BatchPlan.Ending)
    {
        var plan = BatchPlan(maxBatch: maxBatch)
        var actions: [BatchPlan.Action] = []
        for item in items {
            let action = plan.take(isHealthCheck: item == .health)
            actions.append(action)
            if item == .failingWrite, action == .apply || action == .beginAndApply { plan.transactionFailed() }
        }
        return (actions, plan.room, plan.ending(commitFailed: commitFails))
    }

    @Test func theFirstWriteBeginsTheTransactionAndTheOthersJoinIt() {
        let result = Self.run([.write, .write, .health, .write])
        #expect(result.actions == [.beginAndApply, .apply, .answerAtEnd, .apply])
        #expect(result.room == 1)
        #expect(result.ending == .commit)
    }

    @Test func healthChecksAloneEndWithNothingToCommitAndTakeNoMore() {
        let result = Self.run([.health, .health])
        #expect(result.actions == [.answerAtEnd, .answerAtEnd])
        #expect(result.room == 0)
        #expect(result.ending == .nothing)
    }

    @Test func aFullBatchTakesNoMore() {
        #expect(Self.run([.write, .write, .write, .write]).room == 0)
        #expect(Self.run([.write, .write, .write, .write, .health]).room == 0)
    }

    @Test func afterAFailureTheRestIsKeptForTheFallbackAndTheBatchEndsAtOnce() {
        let result = Self.run([.write, .failingWrite, .write, .health])
        #expect(result.actions == [.beginAndApply, .apply, .keepForFallback, .answerAtEnd])
        #expect(result.room == 0)
        #expect(result.ending == .oneByOne)
        #expect(Self.run([.failingWrite]).ending == .oneByOne)
    }

    @Test func aCommitThatFailsSendsTheBatchOneByOne() {
        #expect(Self.run([.write, .write], commitFails: true).ending == .oneByOne)
        #expect(Self.run([.health], commitFails: true).ending == .nothing)
    }
}
