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
    private let missing = Mutex<[String: ContinuousClock.Instant]>([:])

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
        let key = "\(app)\u{0}\(transactionId)"
        return missing.withLock { missing in
            guard let since = missing[key] else { return false }
            if since.duration(to: .now) < Self.missingTTL { return true }
            missing[key] = nil
            return false
        }
    }

    package func rememberMissing(_ transactionId: String, app: String) {
        missing.withLock { missing in
            if missing.count >= Self.missingCapacity {
                let now = ContinuousClock.now
                missing = missing.filter { $0.value.duration(to: now) < Self.missingTTL }
                if missing.count >= Self.missingCapacity { missing.removeAll() }
            }
            missing["\(app)\u{0}\(transactionId)"] = .now
        }
    }

    /// The JWS Apple signed for the transaction, verified for the app.
    package func fetch(_ app: AppConfig, _ transactionId: String) throws -> String {
        try pool.signedTransaction(app: app, transactionId: transactionId)
    }
}
