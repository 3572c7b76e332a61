import AppStore
import AppStoreServerAPI
import Synchronization

/// The request rates of a process's App Store Server API clients, per app and environment (and
/// per endpoint inside: `EndpointRateLimits`), so that clients made for different work (the
/// server's own workers, the API's transaction lookups) keep to Apple's limits together.
package final class AppleAPIRates: Sendable {
    private let byApp = Mutex<[String: EndpointRateLimits]>([:])

    package init() {}

    /// The rates of `app` in `environment`; made with `cap` on first use.
    package func limits(app: String, environment: AppStoreEnvironment, cap: Double?) -> EndpointRateLimits {
        byApp.withLock { limits in
            let key = "\(app)\u{0}\(environment.rawValue)"
            if let known = limits[key] { return known }
            let made = EndpointRateLimits(environment: environment, cap: cap)
            limits[key] = made
            return made
        }
    }
}
