import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import Synchronization

/// What a local App Store knows: apps, purchases, renewal info, the notifications it sent, and
/// what developers told it. Tests and rehearsals fill it; `AppStoreServerAPISimulator` serves it.
public final class SimulatedAppStore: Sendable {
    /// One app of the simulated store.
    public struct App: Sendable {
        public var bundleId: String
        public var appAppleId: Int64?
        public var environment: AppStoreEnvironment

        public init(bundleId: String, appAppleId: Int64?, environment: AppStoreEnvironment) {
            self.bundleId = bundleId
            self.appAppleId = appAppleId
            self.environment = environment
        }
    }

    /// A transaction's payload (`JWSTransactionDecodedPayload` members), and the customer
    /// account whose history it is in.
    struct Transaction: Sendable {
        var payload: [String: JSONValue]
        var account: String
        var order: Int

        var transactionId: String? { payload["transactionId"]?.stringValue }
        var originalTransactionId: String? { payload["originalTransactionId"]?.stringValue }
        func int(_ name: String) -> Int64? {
            if case .integer(let value) = payload[name] { return value }
            return nil
        }
    }

    /// A notification the store sent, or tried to.
    struct SentNotification: Sendable {
        var signedPayload: String
        var signedDate: Int64
        var type: String?
        var subtype: String?
        var transactionIds: Set<String>
        var delivered: Bool
        var attempts: [SendAttemptItem]
    }

    /// A failure to answer with, instead of the real answer.
    public enum Fault: Sendable, Equatable {
        /// An HTTP status with Apple's error body (when `code` is given) and `Retry-After`.
        case status(Int, code: Int64?, retryAfter: String?)
        /// An answer that comes after this many seconds.
        case delay(Double)
    }

    struct State: Sendable {
        var transactions: [String: [Transaction]] = [:]
        var renewalInfo: [String: [String: JSONValue]] = [:]
        var notifications: [String: [SentNotification]] = [:]
        var orders: [String: [String]] = [:]
        var consumption: [(transactionId: String, request: JSONValue)] = []
        var consumptionV1: [(transactionId: String, request: JSONValue)] = []
        var massExtensions: [String: (productId: String, count: Int64, at: Int64)] = [:]
        /// Each subscription's renewal-date extensions: Apple's answer by request identifier.
        var extensions: [String: [(requestIdentifier: String, at: Int64, answer: [String: JSONValue])]] = [:]
        var testNotifications: [String: (signedPayload: String, attempts: [SendAttemptItem])] = [:]
        var faults: [(fault: Fault, endpoint: String?)] = []
        var requests: [String: Int] = [:]
        var nextOrder = 0
    }

    /// Sends a notification to the app's server, as App Store does to the URL in App Store
    /// Connect, and says how the attempt went.
    public typealias Delivery = @Sendable (_ app: App, _ signedPayload: String) -> SendAttemptResult

    /// What the store changed itself at a developer's request, told to whatever keeps it beyond
    /// this process (`simulate apple-api`'s journal, which the stories read too).
    public enum Change: Sendable, Equatable {
        /// A transaction the store changed (an extension's new `expiresDate`): its payload.
        case transaction([String: JSONValue], bundleId: String)
        /// A subscription's renewal info the store changed.
        case renewalInfo([String: JSONValue], originalTransactionId: String, bundleId: String)
        /// A notification the store sent, or tried to.
        case notification(signedPayload: String, bundleId: String, delivered: Bool)
        /// A renewal-date extension made (not a repeat of one): its request identifier, when, and
        /// Apple's answer, so that a repeat after a restart gets that answer and the yearly cap holds.
        case extensionMade(
            originalTransactionId: String, requestIdentifier: String, atMs: Int64, answer: [String: JSONValue],
            bundleId: String, environment: AppStoreEnvironment)
        /// A mass extension made: its request identifier, product, how many it extended, when.
        case massExtensionMade(
            requestIdentifier: String, productId: String, count: Int64, atMs: Int64, bundleId: String,
            environment: AppStoreEnvironment)
    }

    public let apps: [App]
    let signer: JWSSigner
    let state = Mutex(State())
    let clock: @Sendable () -> Date
    let deliver: Delivery?
    let record: (@Sendable (Change) -> Void)?

    /// A store of `apps`, signing what it serves with `chain` (as App Store signs with Apple's).
    /// `deliver`: where the notifications it makes itself (TEST) go; nil, nowhere (none is sent).
    /// `record` is told each change the store makes itself, after it is made.
    public init(
        apps: [App], chain: TestChain, clock: @escaping @Sendable () -> Date = { Date() }, deliver: Delivery? = nil,
        record: (@Sendable (Change) -> Void)? = nil
    ) throws {
        self.apps = apps
        self.signer = try chain.signer()
        self.clock = clock
        self.deliver = deliver
        self.record = record
    }

    func app(_ bundleId: String) -> App? { apps.first { $0.bundleId == bundleId } }

    var nowMs: Int64 { Int64(clock().timeIntervalSince1970 * 1000) }

    // MARK: - Filling the store

    /// Adds a transaction (its payload members) to the history of `account` (by default the
    /// account of the transaction with its id it replaces, else the transaction's
    /// `originalTransactionId`: one purchase per customer); a transaction with an id already
    /// known replaces it.
    public func addTransaction(_ payload: [String: JSONValue], bundleId: String, account: String? = nil) {
        state.withLock { state in
            var list = state.transactions[bundleId, default: []]
            let id = payload["transactionId"]?.stringValue
            let replaced = id.flatMap { id in list.last { $0.transactionId == id }?.account }
            var transaction = Transaction(
                payload: payload, account: account ?? replaced ?? payload["originalTransactionId"]?.stringValue ?? "",
                order: 0)
            state.nextOrder += 1
            transaction.order = state.nextOrder
            list.removeAll { $0.transactionId != nil && $0.transactionId == transaction.transactionId }
            list.append(transaction)
            state.transactions[bundleId] = list
        }
    }

    /// Records a renewal-date extension made before (`Change.extensionMade`), once.
    public func addExtension(
        originalTransactionId: String, requestIdentifier: String, atMs: Int64, answer: [String: JSONValue]
    ) {
        state.withLock { state in
            guard !(state.extensions[originalTransactionId] ?? []).contains(where: { $0.requestIdentifier == requestIdentifier })
            else { return }
            state.extensions[originalTransactionId, default: []].append((requestIdentifier, atMs, answer))
        }
    }

    /// Records a mass extension made before (`Change.massExtensionMade`); the first one kept.
    public func addMassExtension(requestIdentifier: String, productId: String, count: Int64, atMs: Int64) {
        state.withLock { state in
            if state.massExtensions[requestIdentifier] == nil {
                state.massExtensions[requestIdentifier] = (productId, count, atMs)
            }
        }
    }

    /// Sets the renewal info of a subscription (its payload members).
    public func setRenewalInfo(_ payload: [String: JSONValue], originalTransactionId: String) {
        state.withLock { $0.renewalInfo[originalTransactionId] = payload }
    }

    /// Records a notification the store sent (or tried to, when not `delivered`; `result` says
    /// how the attempt failed, no response unless given); one recorded already is kept as it was.
    public func addNotification(
        _ signedPayload: String, bundleId: String, delivered: Bool, result failure: SendAttemptResult = .noResponse
    ) throws {
        let payload = try UnverifiedPayload.json(of: signedPayload)
        var ids: Set<String> = []
        // UnverifiedPayload decodes data.signedTransactionInfo as data.transactionInfo.
        if let transaction = payload["data"]?["transactionInfo"] {
            for name in ["transactionId", "originalTransactionId"] {
                if case .string(let id) = transaction[name] { ids.insert(id) }
            }
        }
        let signedDate: Int64
        if case .integer(let date) = payload["signedDate"] { signedDate = date } else { signedDate = nowMs }
        let result: SendAttemptResult = delivered ? .success : failure
        let notification = SentNotification(
            signedPayload: signedPayload, signedDate: signedDate, type: payload["notificationType"]?.stringValue,
            subtype: payload["subtype"]?.stringValue, transactionIds: ids, delivered: delivered,
            attempts: [SendAttemptItem(attemptDate: signedDate, sendAttemptResult: result)])
        state.withLock { state in
            guard !(state.notifications[bundleId] ?? []).contains(where: { $0.signedPayload == signedPayload }) else { return }
            state.notifications[bundleId, default: []].append(notification)
        }
    }

    /// Makes an order ID name these transactions.
    public func addOrder(_ orderId: String, transactionIds: [String]) {
        state.withLock { $0.orders[orderId] = transactionIds }
    }

    /// Answers the next `count` calls (of `endpoint` only, by its command-line name, when given)
    /// with `fault`.
    public func inject(_ fault: Fault, count: Int = 1, endpoint: String? = nil) {
        state.withLock { state in
            for _ in 0..<count { state.faults.append((fault, endpoint)) }
        }
    }

    // MARK: - What developers did

    /// How many calls of `endpoint` (its command-line name) were answered, faults included.
    public func requestCount(_ endpoint: String) -> Int { state.withLock { $0.requests[endpoint] ?? 0 } }

    /// The consumption information sent, in order: the transaction and the request body.
    public var consumptionRequests: [(transactionId: String, request: JSONValue)] { state.withLock { $0.consumption } }
    /// The consumption information taken in version 1's form (Advanced Commerce purchases).
    public var consumptionRequestsV1: [(transactionId: String, request: JSONValue)] {
        state.withLock { $0.consumptionV1 }
    }

    /// The app account token a purchase now carries.
    public func appAccountToken(originalTransactionId: String, bundleId: String) -> String? {
        state.withLock { state in
            state.transactions[bundleId]?.last { $0.originalTransactionId == originalTransactionId }?
                .payload["appAccountToken"]?.stringValue
        }
    }

    /// The latest expiry of a subscription.
    public func expiresDate(originalTransactionId: String, bundleId: String) -> Int64? {
        state.withLock { state in
            state.transactions[bundleId]?.filter { $0.originalTransactionId == originalTransactionId }
                .compactMap { $0.int("expiresDate") }.max()
        }
    }

    // MARK: - Signing

    func sign(_ payload: [String: JSONValue]) throws -> String {
        var signed = payload
        signed["signedDate"] = .integer(nowMs)
        return try signer.sign(payload: Data(JSONValue.object(signed).serialized().utf8))
    }
}
