import AppStore
import AppStoreServerAPI
import Foundation
import Synchronization

/// The API's lookups of transactions by id at Apple, bounded: anyone with an app's public key
/// can ask, so each app has at most `perApp` lookups in flight (more are refused, 429), a lookup
/// gives up fast (two attempts, 10 s each), and an id Apple did not know is not asked again for
/// `missingTTL` (at most `missingCapacity` remembered).
package final class AppleTransactionLookups: Sendable {
    package static let perApp = 4
    package static let missingTTL: Duration = .seconds(600)
    package static let missingCapacity = 10_000

    private let pool: AppleAPIClientPool
    package let log: Log
    private let inFlight = Mutex<[String: Int]>([:])
    private let missing = RecentEntries<Bool>(ttl: missingTTL, capacity: missingCapacity)
    /// Accounts' histories restores read lately.
    package let restored = RestoredHistories(ttl: restoreTTL)
    /// The apps a restore said, within the last minute, it found every slot of taken (`restoreSkipped`).
    private let busyLines = RecentEntries<Bool>(ttl: .seconds(60), capacity: 10_000)

    /// How long a restore's read of an account's history stands for the next restore's.
    package static let restoreTTL: Duration = .seconds(600)

    /// - Parameter rates: the request rates the server's other clients keep to, so that
    ///   lookups count against the same limits.
    package init(
        config: AppleAPIConfig, log: Log, rates: AppleAPIRates = AppleAPIRates(),
        onAttempt: (@Sendable (String, AppStoreServerAPIClient.AttemptOutcome) -> Void)? = nil
    ) {
        pool = AppleAPIClientPool(
            config: config, retry: RetryPolicy(maxAttempts: 2, baseDelaySeconds: 0.5, maximumDelaySeconds: 2),
            timeoutSeconds: min(10, Double(config.timeoutSeconds)), rates: rates, onAttempt: onAttempt)
        self.log = log
    }

    /// Apple's Get Transaction History for the account `transactionId` belongs to, in
    /// `environment`: every transaction as Apple signed it, verified.
    package func history(_ app: AppConfig, _ transactionId: String, environment: AppStoreEnvironment) throws
        -> [(signed: String, verified: VerifiedPayload<JWSTransactionDecodedPayload>)]
    {
        try pool.client(for: app, environment: environment).signedTransactionHistory(transactionId)
    }

    /// Takes one of the app's lookup slots; false when all are taken.
    package func begin(app: String) -> Bool {
        inFlight.withLock { counts in
            guard counts[app, default: 0] < Self.perApp else { return false }
            counts[app, default: 0] += 1
            return true
        }
    }

    package func end(app: String) {
        inFlight.withLock { $0[app, default: 1] -= 1 }
    }

    package func isKnownMissing(_ transactionId: String, app: String) -> Bool {
        missing.value(for: "\(app)\u{0}\(transactionId)") != nil
    }

    package func rememberMissing(_ transactionId: String, app: String) {
        missing.set(true, for: ["\(app)\u{0}\(transactionId)"])
    }

    /// Says, once a minute at most for each app, that a restore was left as posted because every
    /// lookup slot of the app was taken.
    package func restoreSkipped(app: String) {
        guard busyLines.valueOrSet(true, for: app) == nil else { return }
        log.warning(
            "apple.restore_skipped",
            "a restore's other purchases were not read from Apple: every lookup slot of the app was taken (lines like this "
                + "one are said once a minute at most)", [("app", .text(app)), ("slots", .integer(Int64(Self.perApp)))])
    }

    /// The JWS Apple signed for the transaction, verified for the app.
    package func fetch(_ app: AppConfig, _ transactionId: String) throws -> String {
        try pool.signedTransaction(app: app, transactionId: transactionId)
    }
}
