/// The writer's decisions for one batch, as a value: which items open and join the shared
/// transaction, how many more it takes while the previous commit is flushed, and how it ends.
/// The writer (`Writer.write`) carries them out; the rules are table-tested without a thread.
struct BatchPlan: Equatable {
    /// What to do with the next item.
    enum Action: Equatable {
        /// A health check: answered once the batch is over (it proves the write lock was taken).
        case answerAtEnd
        /// The batch's first item: begin the shared transaction, then apply it.
        case beginAndApply
        /// Apply it in the shared transaction.
        case apply
        /// The shared transaction failed: keep it for the one-by-one fallback, untouched.
        case keepForFallback
    }

    /// How the batch ends.
    enum Ending: Equatable {
        /// It held nothing but health checks.
        case nothing
        /// Commit the shared transaction, and hand its answers to the flusher.
        case commit
        /// Roll back, and give each item a transaction of its own.
        case oneByOne
    }

    /// The most items a batch holds (health checks apart).
    let maxBatch: Int
    /// Items taken so far, health checks apart.
    private(set) var taken = 0
    /// Whether the shared transaction failed (at its begin or in an item).
    private(set) var failed = false

    init(maxBatch: Int) { self.maxBatch = maxBatch }

    /// Takes the next item and says what to do with it.
    mutating func take(isHealthCheck: Bool) -> Action {
        if isHealthCheck { return .answerAtEnd }
        taken += 1
        if failed { return .keepForFallback }
        return taken == 1 ? .beginAndApply : .apply
    }

    /// The shared transaction failed: what the batch still takes is kept for the fallback.
    mutating func transactionFailed() { failed = true }

    /// How many more items to take while the previous commit is flushed; 0 ends the batch (it is
    /// full, empty, or failed: a failed batch ends at once, so its fallback starts soon).
    var room: Int { taken == 0 || failed ? 0 : max(0, maxBatch - taken) }

    /// How the batch ends, given whether the commit itself failed (a full disk, a failed flush).
    func ending(commitFailed: Bool = false) -> Ending {
        if taken == 0 { return .nothing }
        return failed || commitFailed ? .oneByOne : .commit
    }
}
