import AppStore
import Foundation
import Storage

/// Held notifications taken up again: Apple signed them, but for a bundle or environment the
/// configuration did not accept when they arrived. After a configuration fix (at the next start),
/// each one the app's verifier now accepts is applied to subscription state as if it had just
/// been received, and leaves the held state; the others stay held, with their new reason.
struct HeldNotifications {
    let verifiers: [String: AppVerifiers]
    let store: SQLiteStore
    /// The same hand-off ingest uses, so a re-applied notification is applied and logged for replay alike.
    let handOff: LedgerHandOff

    struct Outcome: Equatable, Sendable {
        var applied = 0
        var stillHeld = 0
        /// Accepted now, but applying failed (the notification stays held; the message says why).
        var failures: [String] = []
    }

    /// Examines every held notification of every configured app once.
    func reapply() throws -> Outcome {
        var outcome = Outcome()
        for (appId, app) in verifiers.sorted(by: { $0.key < $1.key }) {
            try forEachHeld(appId: appId) { record in
                // Verified at the time it arrived, as ingest did: a certificate that expired since
                // does not make it less Apple's.
                let arrived = Date(timeIntervalSince1970: Double(record.receivedAt) / 1000)
                let verified: VerifiedNotification
                do {
                    verified = try app.strict.verifyNotification(record.signedPayload, now: arrived)
                } catch {
                    outcome.stillHeld += 1
                    try keepHeld(record, because: error)
                    return
                }
                let accepted = NotificationRecord(
                    verified: verified, appId: appId, signedPayload: record.signedPayload, receivedAt: record.receivedAt,
                    state: .received, stateReason: nil)
                do {
                    if try apply(accepted) { outcome.applied += 1 }
                } catch {
                    outcome.failures.append("\(record.notificationUUID): \(error)")
                }
            }
        }
        return outcome
    }

    /// Applies a held notification the configuration now accepts, in one transaction with its
    /// leaving the held state; false when it left it meanwhile (another start, for one).
    private func apply(_ record: NotificationRecord) throws -> Bool {
        let handOff = handOff
        let applied = Locked(false)
        try store.write { transaction in
            guard try transaction.setState(ofNotification: record.notificationUUID, from: .held, to: .applied) else {
                return
            }
            let state = try handOff.handOff(record, in: transaction)
            if state != .applied {
                _ = try transaction.setState(ofNotification: record.notificationUUID, from: .applied, to: state)
            }
            applied.withLock { $0 = state == .applied }
        }
        return applied.value
    }

    /// Keeps the reason up to date: the configuration that still refuses it may say something else.
    private func keepHeld(_ record: NotificationRecord, because error: any Error) throws {
        let reason = (error as? VerificationError).map { "\($0.status.rawValue): \($0.detail)" } ?? "\(error)"
        guard reason != record.stateReason else { return }
        try store.write { transaction in
            _ = try transaction.setState(ofNotification: record.notificationUUID, from: .held, to: .held, reason: reason)
        }
    }

    /// Every held notification of `appId`, in the order they arrived, read one at a time.
    private func forEachHeld(appId: String, _ body: (NotificationRecord) throws -> Void) throws {
        for uuid in try store.notificationUUIDs(appId: appId, state: .held) {
            // Gone or taken up meanwhile (by another start on the same database): nothing to do.
            guard let record = try store.notification(uuid: uuid), record.state == .held else { continue }
            try body(record)
        }
    }
}
