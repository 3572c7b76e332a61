import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import Storage
import Synchronization
import Threads

/// `serve`'s answers to Apple's consumption requests: every `interval`, each CONSUMPTION_REQUEST
/// of an app with a key and `appleApi.consumption.enabled` gets a row, and each due row is sent
/// (Send Consumption Information: version 2, or version 1 for an Advanced Commerce purchase),
/// retried until Apple takes it or its 12 hours end.
package final class ConsumptionAnswering: StoppableService {
    package static let interval: Double = 15
    /// Answers sent by one pass at most; the rest wait for the next.
    package static let batch = 50

    private let config: RevenueDotConfig
    private let store: Store
    private let metrics: Metrics
    private let log: Log
    private let clock: @Sendable () -> Date
    private let clients: AppleAPIClientPool
    private let thread = PeriodicThread()
    /// Held by a pass: the thread's and one asked for (`RevenueDotService.answerConsumptionRequests`)
    /// take turns. Passes of another configuration (a reload's) or node are kept apart by the
    /// claims alone.
    private let pass = Mutex(())

    package init(
        config: RevenueDotConfig, store: Store, clients: AppleAPIClientPool, metrics: Metrics,
        clock: @escaping @Sendable () -> Date,
        log: Log
    ) {
        self.config = config
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.log = log
        self.clients = clients
    }

    /// The apps whose consumption requests are answered.
    package var apps: [AppConfig] {
        guard config.appleAPI.consumption.enabled else { return [] }
        return config.apps.filter { $0.inAppPurchaseKey != nil }
    }

    package func start() {
        guard !apps.isEmpty else { return }
        thread.start("consumption", every: Self.interval, immediately: true) { [self] in runOnce() }
    }

    package func beginStop() { thread.beginStop() }
    package func waitStopped(until deadline: DispatchTime) -> Bool { thread.waitStopped(until: deadline) }
    /// A call to Apple in progress may outlast it: storage then refuses what it brings (it was
    /// not stored, so nothing is lost). The rest is taken up at the next start; the answer of
    /// that call once its claim has ended (`leaseMs`).
    package var stopLimit: Duration? { .seconds(5) }

    /// How long a claimed answer is this node's: a minute longer than one send can take with all
    /// its attempts (`AppleAPIClientPool.longestCallSeconds`).
    package var leaseMs: Int64 { Int64((clients.longestCallSeconds + 60) * 1000) }

    /// Finds new requests and sends what is due, each answer claimed first so that it is sent by
    /// one pass of one node.
    package func runOnce() {
        pass.withLock { _ in answerDue() }
    }

    private func answerDue() {
        do {
            let nowMs = UnixTime.milliseconds(clock())
            _ = try store.enqueueConsumptionRequests(
                appIds: apps.map(\.id), sinceMs: nowMs - ConsumptionDecision.windowMs, nowMs: nowMs)
            for _ in 0..<Self.batch {
                // The time of each claim: the sends before it may have taken minutes.
                let nowMs = UnixTime.milliseconds(clock())
                guard !thread.isStopping,
                    let answer = try store.claimDueConsumptionAnswer(nowMs: nowMs, leaseMs: leaseMs, onDatabaseClock: true)
                else { return }
                let outcome = try handle(answer, nowMs: nowMs)
                if try !store.recordConsumptionAnswer(outcome, claimedUntilMs: answer.nextAttemptAtMs) {
                    log.warning(
                        "consumption.claim_lost", "another pass took the answer before this one recorded it",
                        [("uuid", .text(answer.notificationUUID)), ("status", .text(outcome.status.rawValue))])
                }
            }
        } catch {
            log.warning(
                "consumption.failed", "tried again at a later pass (a claimed answer once its claim ends)",
                [("error", .text("\(error)"))])
        }
    }

    /// One due answer: decided, sent, and what became of it. Storage that fails to say what the
    /// request was about throws: the answer stays claimed and is tried again once the claim ends,
    /// never skipped for a transaction that is stored. A stored transaction that does not
    /// decode never will: the answer fails, saying so.
    package func handle(_ pending: ConsumptionAnswer, nowMs: Int64) throws(StoreError) -> ConsumptionAnswer {
        var answer = pending
        guard nowMs < answer.requestedAtMs + ConsumptionDecision.windowMs else {
            return settled(answer, .expired, "Apple's 12 hours passed", nowMs: nowMs)
        }
        guard let app = config.app(answer.appId) else {
            return settled(answer, .failed, "the app is no longer configured", nowMs: nowMs)
        }
        let transaction: JWSTransactionDecodedPayload?
        do {
            transaction = try storedTransaction(of: answer.notificationUUID)
        } catch  where error.code == .corrupt {
            return settled(answer, .failed, error.message, nowMs: nowMs)
        }
        let customerPreference: String?
        do {
            customerPreference = try transaction.flatMap { (transaction) throws(StoreError) in
                try store.ownerAttribute(ConsumptionDecision.preferenceAttribute, of: transaction, appId: app.id)
            }
        } catch  where error.code == .corrupt {
            // The owner may have asked for no answer: none is sent without knowing.
            return settled(
                answer, .skipped,
                "the purchase's owner, whose \(ConsumptionDecision.preferenceAttribute) may ask for no answer, cannot be read: \(error.message)",
                nowMs: nowMs)
        }
        let endpoint: Endpoint
        switch ConsumptionDecision.decide(
            transaction: transaction, config: config.appleAPI.consumption, customerPreference: customerPreference)
        {
        case .skip(let reason): return settled(answer, .skipped, reason, nowMs: nowMs)
        case .send(let request): endpoint = .sendConsumptionInformation(transactionId: answer.transactionId, request)
        case .sendV1(let request): endpoint = .sendConsumptionInformationV1(transactionId: answer.transactionId, request)
        }
        answer.requestJSON = (try? endpoint.body()).map { String(decoding: $0, as: UTF8.self) }
        answer.attempts += 1
        do {
            _ = try clients.client(for: app, environment: AppStoreEnvironment(rawValue: answer.environment)).send(endpoint)
            return settled(answer, .sent, nil, nowMs: nowMs)
        } catch let failure as AppStoreServerAPIError where Self.mayPass(failure) {
            guard
                let next = ConsumptionDecision.nextAttempt(
                    after: answer.attempts, nowMs: nowMs, requestedAtMs: answer.requestedAtMs,
                    notBeforeMs: failure.retryAfterSeconds.map { nowMs + Int64(min($0, 86_400) * 1000) })
            else { return settled(answer, .expired, "\(failure)", nowMs: nowMs) }
            answer.nextAttemptAtMs = next
            answer.lastError = "\(failure)"
            metrics.consumptionAnswers.increment(label: "retry")
            if Self.refusesTheKey(failure) {
                log.warning(
                    "consumption.key_refused",
                    "Apple refused the app's inAppPurchaseKey: fix it and reload; the answer is tried again until its window ends",
                    [("uuid", .text(answer.notificationUUID)), ("error", .text("\(failure)"))])
            }
            return answer
        } catch {
            log.warning(
                "consumption.refused", "Apple refused the consumption answer",
                [("uuid", .text(answer.notificationUUID)), ("error", .text("\(error)"))])
            return settled(answer, .failed, "\(error)", nowMs: nowMs)
        }
    }

    private func storedTransaction(of uuid: String) throws(StoreError) -> JWSTransactionDecodedPayload? {
        guard let json = try store.notificationTransactionJSON(uuid: uuid) else { return nil }
        do {
            return try JSONValueDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        } catch {
            throw StoreError(.corrupt, "the stored transaction of notification \(uuid) does not decode: \(error)")
        }
    }

    /// Whether a later attempt may succeed: no answer, 5xx, 429, a code Apple calls retryable,
    /// and a key Apple refused (401, 403), which a configuration fix and a reload cure within
    /// the request's 12 hours.
    package static func mayPass(_ failure: AppStoreServerAPIError) -> Bool {
        switch failure.kind {
        case .noAnswer: return true
        case .api(let status, let code, _):
            return status >= 500 || status == 429 || refusesTheKey(failure) || (code?.isRetryable ?? false)
        default: return false
        }
    }

    /// Apple refused the request's token: the key, its id, the issuer or the bundle id is wrong.
    static func refusesTheKey(_ failure: AppStoreServerAPIError) -> Bool {
        guard case .api(let status, _, _) = failure.kind else { return false }
        return status == 401 || status == 403
    }

    private func settled(_ pending: ConsumptionAnswer, _ status: ConsumptionAnswer.Status, _ reason: String?, nowMs: Int64)
        -> ConsumptionAnswer
    {
        var answer = pending
        answer.status = status
        answer.lastError = reason
        answer.answeredAtMs = status == .sent ? nowMs : nil
        metrics.consumptionAnswers.increment(label: status.rawValue)
        return answer
    }
}
