import AppStore
import Dispatch
import Foundation
import Storage
import Synchronization
import Threads

/// Held notifications taken up again: Apple signed them, but for a bundle or environment the
/// configuration did not accept when they arrived. After a configuration fix (at the next start,
/// while the server already answers), each one a configured app now accepts is applied to
/// subscription state as if it had just been received, and leaves the held state; the others
/// stay held, with the reason the configuration now gives.
///
/// A notification belongs to the app that accepts it, whatever URL it was posted to: one held
/// under the wrong app (a wrong notification URL in App Store Connect) moves to the one app that
/// accepts it, and is applied there. One that several apps accept stays held, saying so.
package final class HeldNotifications: Sendable {
    package let verifiers: [String: AppVerifiers]
    package let store: Store
    /// The same hand-off ingest uses, so a re-applied notification is applied and logged for replay alike.
    package let handOff: LedgerHandOff
    /// When a re-applied notification is applied: now, as for a late delivery.
    package let clock: @Sendable () -> Date
    private let stopping = Atomic(false)

    /// Notifications applied at once: their commits group like ingest's.
    package static let inFlight = 64

    package init(
        verifiers: [String: AppVerifiers], store: Store, handOff: LedgerHandOff, clock: @escaping @Sendable () -> Date
    ) {
        self.verifiers = verifiers
        self.store = store
        self.handOff = handOff
        self.clock = clock
    }

    package struct Outcome: Equatable, Sendable {
        package var applied = 0
        package var stillHeld = 0
        /// Accepted now, but applying failed (the notification stays held; the message says why).
        package var failures: [String] = []
        /// Held still, refused or failed.
        package var notApplied: Int { stillHeld + failures.count }
    }

    /// Makes a running `reapply` stop after the notification it is at (the server is stopping).
    package func stop() { stopping.store(true, ordering: .relaxed) }

    /// Examines every held notification once, in arrival order; returns when all it applied are committed.
    ///
    /// With `.failed`, the notifications whose hand-off threw when they arrived are tried again
    /// the same way (a fixed build, a storage error that passed): each one its app still accepts
    /// is applied, the others stay failed. Nothing else ever takes them up.
    package func reapply(_ state: NotificationState = .held) throws -> Outcome {
        let outcome = Locked(Outcome())
        let slots = DispatchSemaphore(value: Self.inFlight)
        let pending = DispatchGroup()
        defer { pending.wait() }
        let uuids = try store.notificationUUIDs(state: state)
        for (position, uuid) in uuids.enumerated() {
            if stopping.load(ordering: .relaxed) {
                // Not looked at: still held, taken up at the next start.
                outcome.withLock { $0.stillHeld += uuids.count - position }
                break
            }
            guard let record = try store.notification(uuid: uuid), record.state == state else { continue }
            switch decide(record) {
            case .stay(let reason):
                outcome.withLock { $0.stillHeld += 1 }
                if state == .held, reason != record.stateReason { try keepHeld(record, because: reason) }
            case .apply(let accepted) where state != .held && accepted.appId != record.appId:
                // Only a held notification moves to another app; a failed one stays its app's.
                outcome.withLock { $0.stillHeld += 1 }
            case .apply(let accepted):
                slots.wait()
                pending.enter()
                apply(accepted, from: state, under: record.appId) { result in
                    outcome.withLock { outcome in
                        switch result {
                        case .success(true): outcome.applied += 1
                        case .success(false): break
                        case .failure(let error): outcome.failures.append("\(record.notificationUUID): \(error)")
                        }
                    }
                    slots.signal()
                    pending.leave()
                }
            }
        }
        pending.wait()
        return outcome.value
    }

    private enum Decision {
        case apply(NotificationRecord)
        case stay(reason: String)
    }

    /// The app it was held under first, then the others: the one that accepts it, verified at
    /// the time it arrived (a certificate that expired since does not make it less Apple's).
    private func decide(_ record: NotificationRecord) -> Decision {
        let arrived = Date(timeIntervalSince1970: Double(record.receivedAt) / 1000)
        var accepting: [(appId: String, verified: VerifiedNotification)] = []
        var refusal = "app \"\(record.appId)\" is no longer configured"
        // Its own app first, then the others by id.
        func order(_ appId: String) -> (Int, String) { (appId == record.appId ? 0 : 1, appId) }
        for (appId, app) in verifiers.sorted(by: { order($0.key) < order($1.key) }) {
            do {
                accepting.append((appId, try app.strict.verifyNotification(record.signedPayload, now: arrived)))
                if appId == record.appId { break }
            } catch {
                guard appId == record.appId else { continue }
                refusal = error.description
            }
        }
        guard accepting.count == 1, let chosen = accepting.first else {
            if accepting.isEmpty { return .stay(reason: refusal) }
            return .stay(
                reason: "apps \(accepting.map(\.appId).joined(separator: ", ")) all accept it: it stays held until one does")
        }
        return .apply(
            NotificationRecord(
                verified: chosen.verified, appId: chosen.appId, signedPayload: record.signedPayload,
                receivedAt: UnixTime.milliseconds(clock()), state: .received, stateReason: nil,
                storedAs: record.notificationUUID))
    }

    /// Applies a held (or failed) notification an app now accepts (a held one moved to that app
    /// first), in one transaction with its leaving that state; false when it left it meanwhile.
    private func apply(
        _ record: NotificationRecord, from state: NotificationState, under heldAppId: String,
        done: @escaping @Sendable (Result<Bool, StoreError>) -> Void
    ) {
        let handOff = handOff
        let applied = Locked(false)
        store.write(
            { transaction in
                if record.appId != heldAppId,
                    !(try transaction.moveHeldNotification(record.notificationUUID, toApp: record.appId))
                {
                    return
                }
                guard try transaction.setState(ofNotification: record.notificationUUID, from: state, to: .applied) else {
                    return
                }
                let state = try handOff.handOff(record, in: transaction)
                if state != .applied {
                    _ = try transaction.setState(ofNotification: record.notificationUUID, from: .applied, to: state)
                }
                applied.withLock { $0 = state == .applied }
            }, completion: { result in done(result.map { applied.value }) })
    }

    /// Keeps the reason up to date: the configuration that still refuses it may say something else.
    private func keepHeld(_ record: NotificationRecord, because reason: String) throws {
        try store.write { transaction in
            _ = try transaction.setState(ofNotification: record.notificationUUID, from: .held, to: .held, reason: reason)
        }
    }
}
