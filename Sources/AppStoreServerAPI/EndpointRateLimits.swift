import AppStore
import Synchronization

extension Endpoint {
    /// Apple's limit on this endpoint, in requests a second per app, in `environment`: the
    /// table of "Identifying rate limits" for Production, and a tenth of it in Sandbox. Apple
    /// counts each endpoint apart and enforces the limit over an hour.
    /// https://developer.apple.com/documentation/appstoreserverapi/identifying-rate-limits
    public func appleRequestsPerSecond(in environment: AppStoreEnvironment) -> Double {
        let production: Double =
            switch self {
            case .transactionInfo, .transactionHistory, .allSubscriptionStatuses, .notificationHistory,
                .sendConsumptionInformation, .sendConsumptionInformationV1:
                50
            case .extendRenewalDate, .setAppAccountToken: 20
            case .lookUpOrderId, .refundHistory: 10
            // The status of a mass extension is not in Apple's table: held to the mass extension's.
            case .extendRenewalDatesForAllActiveSubscribers, .renewalDateExtensionStatus, .requestTestNotification,
                .testNotificationStatus:
                1
            }
        return environment == .sandbox ? production / 10 : production
    }
}

/// The request rates of one app in one environment: a token bucket per endpoint, each at
/// Apple's limit for that endpoint or at `cap` when lower. Share one among every client of the
/// app and environment in a process, as Apple counts the app's calls together.
public final class EndpointRateLimits: Sendable {
    public let environment: AppStoreEnvironment
    /// At most this many calls a second to any one endpoint; nil keeps Apple's limits, and 0
    /// turns limiting off (a local simulator).
    public let cap: Double?
    private let buckets = Mutex<[String: RateLimiter]>([:])
    /// Endpoint name → the monotonic time before which no call is made: Apple answered 429.
    private let holds = Mutex<[String: Double]>([:])

    public init(environment: AppStoreEnvironment, cap: Double?) {
        self.environment = environment
        self.cap = cap
    }

    /// The rate `endpoint`'s calls are held to (0: none).
    public func requestsPerSecond(for endpoint: Endpoint) -> Double {
        let apple = endpoint.appleRequestsPerSecond(in: environment)
        guard let cap else { return apple }
        return cap > 0 ? min(cap, apple) : 0
    }

    /// Takes one call's token for `endpoint` at `now` (seconds on a monotonic clock); returns
    /// how long to wait before making the call: while the endpoint is held back (`holdBack`),
    /// whatever the rate, until the hold ends, and then the bucket's wait, so calls held
    /// together go out spaced at the endpoint's rate rather than all at once. Nil, taking no
    /// token, when the hold is longer than `longestHold`: one reading of the hold decides both.
    public func reserve(_ endpoint: Endpoint, now: Double, longestHold: Double = .infinity) -> Double? {
        let held = heldBack(endpoint, now: now)
        guard held <= longestHold else { return nil }
        return held + bucketWait(endpoint, now: now)
    }

    /// How long calls to `endpoint` are still held back at `now` (0 when they are not).
    public func heldBack(_ endpoint: Endpoint, now: Double) -> Double {
        holds.withLock { holds in max(0, (holds[endpoint.name] ?? 0) - now) }
    }

    /// Holds every call to `endpoint` back until `until` (monotonic seconds), for each client
    /// sharing these limits: Apple answered one with 429, and calls made sooner would only
    /// spend the app's quota on more refusals. A later hold never shortens an earlier one.
    public func holdBack(_ endpoint: Endpoint, until: Double) {
        holds.withLock { holds in holds[endpoint.name] = max(holds[endpoint.name] ?? 0, until) }
    }

    private func bucketWait(_ endpoint: Endpoint, now: Double) -> Double {
        let rate = requestsPerSecond(for: endpoint)
        guard rate > 0 else { return 0 }
        let bucket = buckets.withLock { buckets in
            if let known = buckets[endpoint.name] { return known }
            let made = RateLimiter(requestsPerSecond: rate, now: now)
            buckets[endpoint.name] = made
            return made
        }
        return bucket.reserve(now: now)
    }
}
