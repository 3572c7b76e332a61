import AppStore
import Crypto
import Foundation
import Storage
import Subscriptions

/// `revenuedot.json`, loaded and validated: everything the service needs to start.
///
/// The keys are a contract (README "Configuration"); `http` is an addition for the server's
/// worker pool and limits.
package struct RevenueDotConfig: Sendable {
    /// The file it was read from, for messages and for resolving relative paths.
    package var file: String
    package var listen: ListenAddress
    package var database: DatabaseLocation
    /// `database.passwordFile`, resolved: checked private as the other secret files are.
    package var databasePasswordFile: String?
    package var apps: [AppConfig]
    package var scheduler: SchedulerConfig
    package var http: HTTPConfig
    package var appleAPI = AppleAPIConfig()
    /// What this node calls itself among several on one database (`node.id`); the host name when
    /// nil. The process id follows it wherever the node is named (`NodeIdentity`).
    package var nodeId: String?
    /// What the server logs and how (`log`).
    package var log = LogConfig()

    /// The app with this id.
    package func app(_ id: String) -> AppConfig? { apps.first { $0.id == id } }
}

/// Where the HTTP server listens: `host:port`, with `[v6]:port` for IPv6.
package struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    package var host: String
    package var port: UInt16

    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// `sqlite:PATH` (the default, embedded) or `postgres://...` (several nodes).
package enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresURL)

    /// Where the database is, without a password.
    package var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url): url.description
        }
    }
}

/// One App Store app this server accepts notifications for.
package struct AppConfig: Sendable {
    package var id: String
    package var bundleId: String
    package var appAppleId: Int64?
    package var environments: Set<AppStoreEnvironment>
    /// Apple Root CA - G3 first, then the configured extra roots.
    package var rootCertificates: [Certificate]
    package var trackNewPurchasesFromServerNotifications: Bool
    package var secretApiKey: String?
    package var publicApiKey: String?
    /// Entitlement identifier → the product IDs that grant it.
    package var entitlements: [String: [String]]
    /// Where its events go (`webhooks`, or the one `webhook`); empty for none.
    package var webhooks: [WebhookConfig] = []
    /// The first webhook (the one of `webhook`).
    package var webhook: WebhookConfig? {
        get { webhooks.first }
        set { webhooks = newValue.map { [$0] } ?? [] }
    }
    /// Names of webhooks it no longer has whose deliveries are dropped at start and reload
    /// (`removedWebhooks`).
    package var removedWebhooks: [String] = []
    package var inAppPurchaseKey: InAppPurchaseKeyConfig?
    /// How a purchase moves between identified customers (RevenueCat's restore behaviour).
    package var restoreBehavior: RestoreBehavior = .transfer
    /// Which customers non-production purchases give entitlements to (`sandboxAccess`).
    package var sandboxAccess = SandboxAccess.everyone
    /// What RevenueCat's SDKs fetch as offerings (`offerings`), in order; empty for none.
    package var offerings: [OfferingConfig] = []
    /// Product ID → the name RevenueCat's `display_name` gives it (`productDisplayNames`, what
    /// RevenueCat's dashboard sets per product); a product not named shows null.
    package var productDisplayNames: [String: String] = [:]
    /// Whether the developer is in Apple's Small Business Program: 15% commission on every sale.
    package var smallBusinessProgram = false
    /// The operator's exchange rates (top-level `exchangeRatesFile`), shared by every app.
    package var exchangeRates: ExchangeRates?
    /// Counts the events this app's inputs make without a USD price (no rate for their
    /// currency): the running server's metric, kept across reloads; nil counts nothing.
    package var unpricedEvents: Counter?

    /// The verification policy for this app's notifications.
    package var policy: VerificationPolicy {
        VerificationPolicy(bundleId: bundleId, appAppleId: appAppleId, environments: environments)
    }
}

/// Where and how events are delivered to the app's backend.
package struct WebhookConfig: Sendable {
    package var url: URL
    package var authorization: String?
    package var signingSecret: String?
    package var timeoutSeconds: Int
    package var retryDelaysSeconds: [Int]
    package var concurrency: Int
    /// A PEM file of the CA certificates that alone are trusted for an https `url`, in place of
    /// the system's store; nil to trust the system's store.
    ///
    /// In place of, not beside: a receiver with a private CA is reached through names and
    /// addresses only that CA should vouch for, and adding the system's roots would let any
    /// public CA that issues a certificate for the name (a name that also exists in public DNS,
    /// a resolver that answers wrongly) stand in for the receiver. A receiver with a public
    /// certificate needs no `caFile`.
    package var caFile: String? = nil

    /// Its id in the app's `webhooks` (`name`): `""` for the first unnamed one, else its index.
    package var id = ""
    /// The environments whose events it takes (RevenueCat's filter); nil for both.
    package var environments: Set<EventEnvironment>? = nil
    /// The event types it takes; nil for all.
    package var eventTypes: Set<String>? = nil
    /// How long a customer's failing event holds that customer's later ones back (then they go,
    /// and it keeps retrying; `sequence` still orders them).
    package var orderHoldSeconds = 300
    /// Names it had before (`previousNames`): their deliveries become its own at start and
    /// reload (`RetiredWebhook`).
    package var previousNames: [String] = []

    package static let defaultRetryDelaysSeconds = [10, 60, 300, 1800, 7200, 21600, 43200, 86400, 86400, 86400]
    /// The longest wait a `retryDelaysSeconds` entry may give: 30 days.
    package static let maximumRetryDelaySeconds: Int64 = 30 * 86_400
}

/// The App Store Connect In-App Purchase key that signs requests (`.p8`, P-256).
package struct InAppPurchaseKeyConfig: Sendable {
    package var keyId: String
    package var issuerId: String
    package var privateKeyPath: String
    package var privateKey: ECPrivateKey
}

package struct SchedulerConfig: Sendable {
    package var intervalMs: Int
}

/// The HTTP server's worker pool and limits (`HTTPServerConfiguration` says what each does).
package struct HTTPConfig: Sendable, Equatable {
    package var threads: Int
    package var maxBodyBytes: Int
    /// Request bodies held in memory at once, all connections together, 64 MiB unless given (at
    /// least `maxBodyBytes`); a body that does not fit is answered 503.
    package var maxBufferedBodyBytes: Int
    /// Idle timeout: a connection silent this long is closed.
    package var timeoutSeconds: Int
    /// Header deadline: a request's whole head within this long of the connection's opening or
    /// its previous answer. 10 s, or `timeoutSeconds` when that is longer, unless given.
    package var headerTimeoutSeconds: Int
    /// Request deadline: a whole request within this long of the connection's opening or its
    /// previous answer, however steadily the client trickles bytes.
    package var requestTimeoutSeconds: Int
    /// Connections at once from one IP address; 0, the default, for no limit (behind a TLS
    /// terminator every client has the terminator's address).
    package var connectionsPerIP: Int
}
