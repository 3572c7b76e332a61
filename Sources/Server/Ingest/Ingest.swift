import AppStore
import Dispatch
import Foundation
import JSON
import Storage
import Threads

/// Receives Apple's notification POSTs: verify, store durably, and only then say 200.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications
package final class Ingest: Sendable {
    private let verifiers: [String: AppVerifiers]
    private let holding: HoldPolicy
    private let store: Store
    private let metrics: Metrics
    private let clock: @Sendable () -> Date
    private let alarm: StorageAlarm?
    private let log: Log?
    private let refusalLines: LimitedLines
    /// Where notification POSTs are verified, off the HTTP workers; on the caller's thread when nil.
    private let lanes: VerifierLanes?

    /// The most notification POSTs waiting in a lane of verifiers (`lanes`): more are answered
    /// 503 at once, as a server too busy to take them (Apple sends them again).
    private let maxQueued: Int
    package static let maxQueuedVerifications = 1024

    /// - Parameters:
    ///   - log: takes a line for every notification refused (ten a second at most), and for
    ///     every one stored held (not for a copy of one already stored).
    ///   - alarm: says when storage starts failing and when it works again; one of its own on
    ///     `log` when nil.
    ///   - refusals: where refusals are written, shared with the HTTP server's (one of its own on
    ///     `log` when nil).
    ///   - lanes: the threads that verify notification POSTs (`receive(appId:body:reply:)`), so
    ///     that an HTTP worker, whose event loop also accepts new connections, only reads and
    ///     hands over: a flood of forged payloads, each a certificate check, then keeps Apple's
    ///     new connections waiting no longer than a lane's queue (`maxQueued`), not for every
    ///     busy connection's turn, and Apple's own signers have a lane of their own. On the
    ///     HTTP worker when nil.
    package init(
        verifiers: [String: AppVerifiers], store: Store, metrics: Metrics,
        clock: @escaping @Sendable () -> Date = Date.init,
        log: Log? = nil, alarm: StorageAlarm? = nil, refusals: LimitedLines? = nil, lanes: VerifierLanes? = nil,
        maxQueued: Int = maxQueuedVerifications
    ) {
        self.lanes = lanes
        self.maxQueued = maxQueued
        self.verifiers = verifiers
        holding = HoldPolicy(apps: verifiers.values.map(\.app))
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.log = log
        self.alarm = alarm ?? log.map { StorageAlarm(log: $0) }
        refusalLines = refusals ?? LimitedLines.refusals(log: log, clock: clock)
    }

    /// Handles one request body for the app `appId`, blocking until the answer is known.
    package func receive(appId: String, body: Data) -> IngestOutcome {
        switch prepare(appId: appId, body: body) {
        case .answered(let outcome): return outcome
        case .store(let record):
            do {
                return outcome(of: record, .success(try store.store(record)))
            } catch {
                return outcome(of: record, .failure(error))
            }
        }
    }

    /// Handles one request body without holding the thread while the commit is on its way:
    /// verification runs on `lanes` (here without them), and `reply` runs once the notification
    /// is committed and on disk (on the store's flusher thread), or once the answer is known
    /// when there is nothing to store. A payload whose header App Store signed before goes to
    /// the known signers' lane, any other to the other; with `maxQueued` waiting in its lane
    /// already, the answer is `busy` at once.
    package func receive(appId: String, body: Data, reply: @escaping @Sendable (IngestOutcome) -> Void) {
        guard let lanes else { return receiveHere(appId: appId, body: body, reply: reply) }
        switch parse(appId: appId, body: body) {
        case .answered(let outcome): reply(outcome)
        case .payload(let app, let signedPayload):
            let lane = app.strict.knowsSigner(of: signedPayload) ? lanes.knownSigners : lanes.others
            guard lane.queued < maxQueued else {
                metrics.notificationsRejected.increment(label: "busy")
                refused(
                    "the verifiers' queue is full: answered 503 (Apple sends it again)",
                    [("app", .text(appId)), ("status", .integer(503)), ("reason", .text("busy"))])
                return reply(.busy)
            }
            lane.submit { [self] in
                finish(verify(signedPayload, app: app, appId: appId), reply: reply)
            }
        }
    }

    /// Verifies each app's newest stored notification again, so that App Store's signer is
    /// known (`SignedDataVerifier.knowsSigner`) before Apple's next notification comes: after a
    /// start, Apple's payloads would otherwise share the others' lane (a flood's) until one of
    /// them verified. Changes nothing stored.
    package func learnSigners() {
        for (appId, app) in verifiers {
            guard let newest = try? store.notifications(NotificationFilter(appId: appId, limit: 1)).first else { continue }
            _ = try? app.strict.verifyNotification(newest.signedPayload, now: clock())
        }
    }

    /// `prepared` stored when there is a record, then answered.
    private func finish(_ prepared: Prepared, reply: @escaping @Sendable (IngestOutcome) -> Void) {
        switch prepared {
        case .answered(let outcome): reply(outcome)
        case .store(let record):
            store.store(record) { [self] result in reply(outcome(of: record, result)) }
        }
    }

    /// `receive(appId:body:reply:)` on this thread.
    private func receiveHere(appId: String, body: Data, reply: @escaping @Sendable (IngestOutcome) -> Void) {
        finish(prepare(appId: appId, body: body), reply: reply)
    }

    /// Handles a batch of bodies as if each were POSTed, in order: verified on every core at
    /// once, then handed to storage in the batch's order (so they are applied in that order,
    /// and committed together). Returns once they are handed to storage; `wait()` on the result
    /// returns once every one is committed. For backfill, which verifies the next batch
    /// meanwhile.
    package func submit(appId: String, bodies: [Data]) -> PendingOutcomes {
        let prepared = Locked([Prepared?](repeating: nil, count: bodies.count))
        DispatchQueue.concurrentPerform(iterations: bodies.count) { index in
            let one = prepare(appId: appId, body: bodies[index])
            prepared.withLock { $0[index] = one }
        }
        let outcomes = Locked([IngestOutcome?](repeating: nil, count: bodies.count))
        let done = DispatchGroup()
        for (index, one) in prepared.value.enumerated() {
            switch one {
            case .answered(let outcome)?: outcomes.withLock { $0[index] = outcome }
            case .store(let record)?:
                done.enter()
                store.store(record) { [self] result in
                    outcomes.withLock { $0[index] = outcome(of: record, result) }
                    done.leave()
                }
            case nil: outcomes.withLock { $0[index] = .unavailable("not prepared") }
            }
        }
        return PendingOutcomes { [outcomes] in
            done.wait()
            return outcomes.value.map { $0 ?? .unavailable("no outcome") }
        }
    }

    private enum Prepared {
        /// Nothing to store: the answer is known.
        case answered(IngestOutcome)
        /// Verified (or held): store it, then answer.
        case store(NotificationRecord)
    }

    /// Writes a `notification.refused` warning (`LimitedLines.refusals`: ten a second at most).
    private func refused(_ message: String, _ fields: [(String, LogValue)]) {
        refusalLines.write(message, fields)
    }

    /// Parses and verifies; returns the record to store or the answer when there is none.
    private func prepare(appId: String, body: Data) -> Prepared {
        switch parse(appId: appId, body: body) {
        case .answered(let outcome): .answered(outcome)
        case .payload(let app, let signedPayload): verify(signedPayload, app: app, appId: appId)
        }
    }

    private enum Parsed {
        /// Nothing to verify: the answer is known.
        case answered(IngestOutcome)
        /// The app's verifiers and the body's `signedPayload`.
        case payload(AppVerifiers, String)
    }

    /// Counts the POST received, finds its app and reads its body.
    private func parse(appId: String, body: Data) -> Parsed {
        metrics.notificationsReceived.increment()
        guard let app = verifiers[appId] else {
            refused(
                "no app is configured under this id",
                [
                    ("app", .text(String(appId.utf8Prefix(maxBytes: 200)))), ("status", .integer(404)),
                    ("reason", .text("unknown app")),
                ])
            metrics.notificationsRejected.increment(label: "unknownApp")
            return .answered(.unknownApp(appId))
        }
        let signedPayload: String
        do {
            signedPayload = try NotificationRequestBody.signedPayload(of: body)
        } catch {
            metrics.notificationsRejected.increment(label: "badRequest")
            refused(
                "the body is not a notification",
                [("app", .text(appId)), ("status", .integer(400)), ("reason", .text(error.description))])
            return .answered(.badRequest(error.description))
        }
        return .payload(app, signedPayload)
    }

    /// Verifies `signedPayload`, posted to app `appId`'s URL.
    private func verify(_ signedPayload: String, app: AppVerifiers, appId: String) -> Prepared {
        let now = clock()
        let receivedAt = UnixTime.milliseconds(now)
        do {
            let verified = try app.strict.verifyNotification(signedPayload, now: now)
            return .store(
                NotificationRecord(
                    verified: verified, appId: appId, signedPayload: signedPayload, receivedAt: receivedAt, state: .received,
                    stateReason: nil))
        } catch let failure
            where failure.status == .invalidAppIdentifier || failure.status == .invalidEnvironment
            || failure.isImplausibleNumber
        {
            // Apple signed it, but not for this app's bundle or environments, or with a number
            // RevenueDot will not compute with: keep it, held, for a configuration fix or a build
            // that takes it. Apple's libraries would accept the last, so refusing it would lose it.
            guard let verified = try? app.keeping.verifyNotification(signedPayload, now: now) else {
                return .answered(reject(appId: appId, failure, at: receivedAt))
            }
            if let refusal = holding.refusal(of: verified.notification.payload) {
                let refused = VerificationError(failure.status, "\(failure.detail); \(refusal)")
                return .answered(reject(appId: appId, refused, at: receivedAt))
            }
            return .store(
                NotificationRecord(
                    verified: verified, appId: appId, signedPayload: signedPayload, receivedAt: receivedAt, state: .held,
                    stateReason: failure.description))
        } catch {
            return .answered(reject(appId: appId, error, at: receivedAt))
        }
    }

    /// The answer for a record once storage has spoken.
    private func outcome(of record: NotificationRecord, _ result: Result<StoreOutcome, StoreError>) -> IngestOutcome {
        switch result {
        case .success(.duplicate):
            alarm?.stored()
            metrics.notificationsDuplicate.increment()
            debugLine("notification.duplicate", "stored before: nothing changes", record)
            return .duplicate(uuid: record.notificationUUID)
        case .success(.stored) where record.state == .held:
            alarm?.stored()
            metrics.notificationsHeld.increment()
            metrics.notificationsStored.increment()
            // Once per notification: a copy that arrives again (Apple's retry, the overlap a
            // backfill reads again at every start and reload) is a duplicate, not stored held.
            log?.warning(
                "notification.held", "validly signed, not for this app as it is: stored held",
                [
                    ("app", .text(record.appId)), ("uuid", .text(record.notificationUUID)),
                    ("reason", .text(record.stateReason ?? "")),
                ])
            return .held(uuid: record.notificationUUID, reason: record.stateReason ?? "")
        case .success(.takenUp):
            alarm?.stored()
            metrics.notificationsStored.increment()
            log?.info(
                "notification.taken_up", "an accepted copy took the held one's place: applied",
                [("app", .text(record.appId)), ("uuid", .text(record.notificationUUID))])
            return .stored(uuid: record.notificationUUID)
        case .success(.stored):
            alarm?.stored()
            metrics.notificationsStored.increment()
            debugLine("notification.stored", "stored", record)
            return .stored(uuid: record.notificationUUID)
        case .failure(let error):
            alarm?.failed(error.description, damaged: error.isDamagedFile)
            metrics.storageFailures.increment()
            return .unavailable(error.description)
        }
    }

    /// A `log.level: debug` line naming the notification; nothing is built at other levels.
    private func debugLine(_ event: String, _ message: String, _ record: NotificationRecord) {
        guard let log, log.enabled(.debug) else { return }
        var fields: [(String, LogValue)] = [
            ("app", .text(record.appId)), ("uuid", .text(record.notificationUUID)), ("type", .text(record.notificationType)),
        ]
        if let subtype = record.subtype { fields.append(("subtype", .text(subtype))) }
        if let original = record.originalTransactionId { fields.append(("original_transaction_id", .text(original))) }
        log.debug(event, message, fields)
    }

    private func reject(appId: String, _ failure: VerificationError, at time: Int64) -> IngestOutcome {
        metrics.notificationsRejected.increment(label: failure.status.rawValue)
        // The detail may quote what was sent: the reject log keeps it cut, the log line shorter
        // still, as a stranger can send one a millisecond.
        let entry = Reject(appId: appId, status: failure.status.rawValue, reason: failure.detail, at: time)
        let logged = entry.reason.utf8Truncated(maxBytes: 200)
        refused(
            "verification failed",
            [
                ("app", .text(entry.appId)), ("status", .integer(401)),
                ("verification", .text(failure.status.rawValue)), ("reason", .text(logged)),
            ])
        store.recordReject(entry)
        return .rejected(status: failure.status.rawValue, detail: entry.reason)
    }
}

/// What ingest made of a batch, once its commits are on disk.
package struct PendingOutcomes: Sendable {
    package let wait: @Sendable () -> [IngestOutcome]

    package static func done(_ outcomes: [IngestOutcome]) -> PendingOutcomes { PendingOutcomes { outcomes } }
}
