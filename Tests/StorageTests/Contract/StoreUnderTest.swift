import AppStore
import Foundation
import JSON
import Subscriptions
import Testing

@testable import Storage

/// The engines the storage contract runs against: every contract test runs once per engine.
enum ContractEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    /// PostgreSQL joins when the tests run beside a cluster (`make test` starts one).
    static var allCases: [ContractEngine] { PostgresTestDatabase.isAvailable ? [.sqlite, .postgres] : [.sqlite] }

    var testDescription: String { rawValue }
}

/// One engine's store in a fresh place, with one app: tracking on (a purchase's `appAccountToken`
/// names its customer), one entitlement, one webhook. Inputs are written through the store's
/// typed operations only.
final class StoreUnderTest {
    static let appId = "demo"
    static let day: Int64 = 86_400_000
    static let t0: Int64 = 1_700_000_000_000

    static let app = LedgerApp(
        id: appId,
        configuration: LedgerConfiguration(
            entitlements: ["pro": ["pro.monthly"]], trackNewPurchasesFromServerNotifications: true),
        webhooks: [WebhookRoute(id: "")])

    let directory: TemporaryDirectory
    /// The PostgreSQL database, for `.postgres`.
    let database: PostgresTestDatabase?
    let store: Store

    init(_ engine: ContractEngine, onCommit: (@Sendable (CommittedBatch) -> Void)? = nil) throws {
        directory = try TemporaryDirectory()
        let app = Self.app
        let handOff = LedgerHandOff(app: { $0 == app.id ? app : nil })
        switch engine {
        case .sqlite:
            database = nil
            store = try Store(path: directory.databasePath, handOff: handOff, onCommit: onCommit)
        case .postgres:
            let database = try PostgresTestDatabase()
            self.database = database
            store = try Store(postgres: database.url, handOff: handOff, onCommit: onCommit)
        }
    }

    deinit { store.close() }

    /// Another store on the same database, as a second node opens it; the caller closes it.
    func anotherNode() throws -> Store {
        let app = Self.app
        let handOff = LedgerHandOff(app: { $0 == app.id ? app : nil })
        if let database { return try Store(postgres: database.url, handOff: handOff) }
        return try Store(path: directory.databasePath, handOff: handOff)
    }

    /// The customer a UUID `appAccountToken` names: the token in lower case.
    static func customer(_ n: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", n) }

    static func transaction(
        _ id: String, original: String, purchase: Int64, expires: Int64, customer: String, reference: String? = nil
    ) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            transactionId: id, originalTransactionId: original, webOrderLineItemId: "w\(id)",
            bundleId: "com.example.app", productId: "pro.monthly", subscriptionGroupIdentifier: "group",
            purchaseDate: purchase, originalPurchaseDate: purchase, expiresDate: expires, quantity: 1,
            type: .autoRenewable, appAccountToken: customer, inAppOwnershipType: .purchased, signedDate: purchase,
            environment: .production, storefront: "USA", storefrontId: "143441",
            transactionReason: id == original ? .purchase : .renewal, currency: "USD", price: 9_990)
    }

    static func renewal(original: String, autoRenew: Bool = true, signed: Int64) -> JWSRenewalInfoDecodedPayload {
        JWSRenewalInfoDecodedPayload(
            originalTransactionId: original, productId: "pro.monthly", autoRenewProductId: "pro.monthly",
            autoRenewStatus: autoRenew ? .on : .off, signedDate: signed, environment: .production)
    }

    /// A notification as ingest hands it to the store: its row, its snapshots, its verified facts.
    static func record(
        _ type: NotificationTypeV2, _ subtype: Subtype? = nil, uuid: String, at receivedAt: Int64,
        transaction: JWSTransactionDecodedPayload, renewal: JWSRenewalInfoDecodedPayload? = nil
    ) throws -> NotificationRecord {
        var record = NotificationRecord(
            notificationUUID: uuid, appId: appId, notificationType: type.rawValue, subtype: subtype?.rawValue,
            environment: "Production", signedDate: receivedAt, transactionId: transaction.transactionId,
            receivedAt: receivedAt, signedPayload: "eyJhbGciOiJFUzI1NiJ9.\(uuid).c2lnbmF0dXJl",
            transaction: TransactionSnapshot(
                transactionId: transaction.transactionId ?? "", originalTransactionId: transaction.originalTransactionId,
                productId: transaction.productId, environment: "Production", signedDate: transaction.signedDate,
                json: try JSONValueEncoder().encode(transaction)),
            renewalInfo: try renewal.map {
                RenewalSnapshot(
                    originalTransactionId: $0.originalTransactionId, productId: $0.productId, environment: "Production",
                    signedDate: $0.signedDate, json: try JSONValueEncoder().encode($0))
            })
        record.facts = try record.verifiedFacts()
        return record
    }

    /// A subscription bought at `t0` by `customer(n)`, stored through the notification path.
    @discardableResult
    func subscribe(_ n: Int, original: String, expires: Int64 = t0 + 30 * day, autoRenew: Bool = true) throws
        -> StoreOutcome
    {
        let transaction = Self.transaction(
            original, original: original, purchase: Self.t0, expires: expires, customer: Self.customer(n))
        return try store.store(
            Self.record(
                .subscribed, .initialBuy, uuid: "sub-\(original)", at: Self.t0, transaction: transaction,
                renewal: Self.renewal(original: original, autoRenew: autoRenew, signed: Self.t0)))
    }

    /// The customer's view, as `GET /v1/subscribers/{id}` reads it.
    func view(_ id: String) throws -> (customer: CustomerState, purchases: [PurchaseView], lastSeenMs: Int64?)? {
        try store.read { (rows) throws(StoreError) in
            do { return try LedgerRows.customerView(id, app: Self.app, from: rows) } catch let error as StoreError {
                throw error
            } catch { throw StoreError(.corrupt, "\(error)") }
        }
    }

    /// Every event of the app, oldest first.
    func events() throws -> [EventListing] {
        try store.read { (rows) throws(StoreError) in
            try EventRows.list(EventFilter(appId: Self.appId, limit: 1000), from: rows).reversed()
        }
    }

    /// `body` in one write transaction of the store.
    func write(_ body: @escaping @Sendable (WriteTransaction) throws -> Void) throws { try store.write(body) }
}
