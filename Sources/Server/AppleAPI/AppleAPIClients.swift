import AppStore
import AppStoreServerAPI
import Foundation

/// Makes the App Store Server API client of a configured app and environment.
package enum AppleAPIClients {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The environment calls go to when none is given: Production when the app accepts it.
    package static func defaultEnvironment(of app: AppConfig) -> AppStoreEnvironment {
        app.environments.contains(.production) ? .production : .sandbox
    }

    /// The key `app` signs its App Store Server API requests with; the line every command says
    /// when it has none (one that asks Apple for each of many rows says it before the first).
    package static func key(of app: AppConfig) throws(Failure) -> InAppPurchaseKeyConfig {
        guard let key = app.inAppPurchaseKey else {
            throw Failure(
                description: "app \"\(app.id)\" has no inAppPurchaseKey: the App Store Server API needs one (see README)")
        }
        return key
    }

    /// The client for `app` in `environment`; a clear one-line failure when the app has no key,
    /// the environment has no API (Xcode, LocalTesting), or the key does not work.
    package static func client(
        for app: AppConfig, environment: AppStoreEnvironment, config: AppleAPIConfig, retry: RetryPolicy = RetryPolicy(),
        timeoutSeconds: Double? = nil, rates: AppleAPIRates? = nil, clock: @escaping @Sendable () -> Date = { Date() },
        onRetry: (@Sendable (AppStoreServerAPIError, Double) -> Void)? = nil,
        onAttempt: (@Sendable (String, AppStoreServerAPIClient.AttemptOutcome) -> Void)? = nil,
        cancellation: CallCancellation = CallCancellation()
    ) throws(Failure) -> AppStoreServerAPIClient {
        let key = try key(of: app)
        guard let baseURL = config.baseURLs[environment] else {
            throw Failure(description: "the App Store Server API serves Production and Sandbox, not \(environment.rawValue)")
        }
        do {
            let verifier = try SignedDataVerifier(
                rootCertificates: app.rootCertificates,
                policy: VerificationPolicy(bundleId: app.bundleId, appAppleId: app.appAppleId, environments: [environment]))
            let token = try APIToken(key: key.privateKey, keyId: key.keyId, issuerId: key.issuerId, bundleId: app.bundleId)
            return try AppStoreServerAPIClient(
                AppStoreServerAPIClient.Configuration(
                    environment: environment, baseURL: baseURL, token: token, verifier: verifier,
                    timeoutSeconds: timeoutSeconds ?? Double(config.timeoutSeconds), retry: retry,
                    requestsPerSecond: config.requestsPerSecond,
                    caFile: config.caFile),
                rateLimits: rates?.limits(app: app.id, environment: environment, cap: config.requestsPerSecond), clock: clock,
                onRetry: onRetry, onAttempt: onAttempt, cancellation: cancellation)
        } catch {
            throw Failure(description: "app \"\(app.id)\": \(error)")
        }
    }
}
