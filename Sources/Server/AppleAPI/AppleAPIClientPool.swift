import AppStore
import AppStoreServerAPI
import Foundation
import Synchronization

/// The App Store Server API clients of a running server, one per app and environment, made on
/// first use and kept (each keeps its connections and its request rate).
package final class AppleAPIClientPool: Sendable {
    private let config: AppleAPIConfig
    private let retry: RetryPolicy
    private let timeoutSeconds: Double?
    private let rates: AppleAPIRates
    private let onAttempt: (@Sendable (String, AppStoreServerAPIClient.AttemptOutcome) -> Void)?
    private let clients = Mutex<[String: AppStoreServerAPIClient]>([:])
    /// Shared by every client of the pool (`stop`).
    private let cancellation = CallCancellation()

    /// Clients retrying as `retry` says, each attempt within `timeoutSeconds` (the config's
    /// when nil), keeping to the request rates `rates` holds (shared with other pools), telling
    /// `onAttempt` of each attempt.
    package init(
        config: AppleAPIConfig, retry: RetryPolicy = RetryPolicy(), timeoutSeconds: Double? = nil,
        rates: AppleAPIRates = AppleAPIRates(),
        onAttempt: (@Sendable (String, AppStoreServerAPIClient.AttemptOutcome) -> Void)? = nil
    ) {
        self.config = config
        self.retry = retry
        self.timeoutSeconds = timeoutSeconds
        self.rates = rates
        self.onAttempt = onAttempt
    }

    /// Ends the waits between attempts of every call the pool's clients make, now and later: a
    /// server stopping does not wait out retries against an Apple that does not answer.
    package func stop() { cancellation.cancel() }

    /// The longest one call can take, all its attempts and the waits between them included
    /// (waits past `maximumDelaySeconds` are not waited for).
    package var longestCallSeconds: Double {
        Double(retry.maxAttempts) * ((timeoutSeconds ?? Double(config.timeoutSeconds)) + retry.maximumDelaySeconds)
    }

    package func client(for app: AppConfig, environment: AppStoreEnvironment) throws(AppleAPIClients.Failure)
        -> AppStoreServerAPIClient
    {
        let key = "\(app.id)\u{0}\(environment.rawValue)"
        if let known = clients.withLock({ $0[key] }) { return known }
        let made = try AppleAPIClients.client(
            for: app, environment: environment, config: config, retry: retry, timeoutSeconds: timeoutSeconds, rates: rates,
            onAttempt: onAttempt, cancellation: cancellation)
        return clients.withLock { clients in
            if let raced = clients[key] { return raced }
            clients[key] = made
            return made
        }
    }

    /// Get Transaction Info in the app's environments, Production first and Sandbox when
    /// Production does not know the transaction (Apple's advice for an id of unknown origin): the
    /// JWS Apple signed, verified for the app. Sandbox is asked too when Production could not be
    /// asked (a network failure, a 5xx): a Sandbox purchase is found without it. When no
    /// environment has the transaction, a failure to ask one is the answer (it may be there),
    /// else Apple's "not found".
    package func signedTransaction(app: AppConfig, transactionId: String) throws -> String {
        var unknown: (any Error)?
        var unasked: (any Error)?
        for environment in Backfill.environments(of: app) {
            do {
                return try client(for: app, environment: environment).signedTransactionInfo(transactionId).signed
            } catch let failure as AppStoreServerAPIError where failure.isUnknownTransaction {
                unknown = failure
            } catch {
                unasked = unasked ?? error
            }
        }
        throw unasked ?? unknown
            ?? AppleAPIClients.Failure(description: "app \"\(app.id)\" accepts neither Production nor Sandbox")
    }
}
