import Foundation
import Storage
import Synchronization

/// When the app (its public key) last asked about or posted for each customer: RevenueCat's
/// `last_seen`. Kept in memory as requests come, so answering a customer writes nothing, and
/// written to `customer_contacts` every few seconds in one transaction (and at a stop).
package final class CustomerContacts: StoppableService {
    private let pending = Mutex<[String: [String: Int64]]>([:])
    private let thread = PeriodicThread()
    private let store: Store
    private let flushes: FailureStreak?

    /// How often contacts are written, seconds.
    package static let flushInterval: Double = 5

    /// `flushes` is told of each write that failed (its contacts are kept for the next one).
    package init(store: Store, flushes: FailureStreak? = nil) {
        self.store = store
        self.flushes = flushes
    }

    /// The app contacted RevenueDot about `appUserId` (the customer's own id) at `atMs`.
    package func record(appId: String, appUserId: String, atMs: Int64) {
        pending.withLock { $0[appId, default: [:]][appUserId] = max($0[appId]?[appUserId] ?? atMs, atMs) }
    }

    /// The latest contact not written yet, if any.
    package func unwritten(appId: String, appUserId: String) -> Int64? {
        pending.withLock { $0[appId]?[appUserId] }
    }

    package func start() {
        thread.start("contacts", every: Self.flushInterval, immediately: false) { [self] in flushReporting() }
    }

    private func flushReporting() {
        do {
            try flush()
            flushes?.succeeded()
        } catch {
            flushes?.failed(error)
        }
    }

    package func beginStop() { thread.beginStop() }

    /// Waits for the thread, then writes what is left.
    package func waitStopped(until deadline: DispatchTime) -> Bool {
        let stopped = thread.waitStopped(until: deadline)
        flushReporting()
        return stopped
    }

    package var stopLimit: Duration? { .seconds(5) }

    /// Writes the contacts kept so far; those a failed write took are kept for the next one.
    package func flush() throws {
        let taken = pending.withLock { pending in
            defer { pending = [:] }
            return pending
        }
        guard !taken.isEmpty else { return }
        do {
            try store.write { transaction in
                for (appId, customers) in taken {
                    for (appUserId, atMs) in customers {
                        try CustomerRows.recordContact(appId: appId, appUserId: appUserId, atMs: atMs, in: transaction)
                    }
                }
            }
        } catch {
            for (appId, customers) in taken {
                for (appUserId, atMs) in customers { record(appId: appId, appUserId: appUserId, atMs: atMs) }
            }
            throw error
        }
    }
}
