import AppStore
import Crypto
import Dispatch
import Foundation
import JSON
import LoopbackClient
import Synchronization

/// Calls the App Store Server API for one app and environment: a token per request, retries
/// with jittered backoff, the app's request rate, and every signed object of an answer verified
/// by the same `SignedDataVerifier` as ingest before anything of it is returned.
///
/// Over RevenueDot's own HTTP client (`LoopbackConnection`, TLS by OpenSSL against the system's
/// trust store), the one every outgoing call uses: its numbers are checked, an answer is bounded
/// in size and time, and redirects are never followed.
public final class AppStoreServerAPIClient: Sendable {
    public struct Configuration: Sendable {
        public var environment: AppStoreEnvironment
        public var baseURL: APIBaseURL
        public var token: APIToken
        /// Checks Apple's signed answers: the app's roots, bundle ID, app Apple ID, and
        /// `environment`.
        public var verifier: SignedDataVerifier
        /// One attempt's limit, from connecting to the last byte of the answer.
        public var timeoutSeconds: Double
        public var retry: RetryPolicy
        /// At most this many calls a second to any one endpoint, under Apple's limit for it
        /// (`Endpoint.appleRequestsPerSecond`: 1 to 50 a second per app in Production, a tenth of
        /// that in Sandbox); nil keeps Apple's limits, and 0 turns limiting off (a local simulator).
        public var requestsPerSecond: Double?
        /// A PEM file of CAs trusted for an https base URL in place of the system's store.
        public var caFile: String?

        public init(
            environment: AppStoreEnvironment, baseURL: APIBaseURL, token: APIToken, verifier: SignedDataVerifier,
            timeoutSeconds: Double = 30, retry: RetryPolicy = RetryPolicy(), requestsPerSecond: Double? = nil,
            caFile: String? = nil
        ) {
            self.environment = environment
            self.baseURL = baseURL
            self.token = token
            self.verifier = verifier
            self.timeoutSeconds = timeoutSeconds
            self.retry = retry
            self.requestsPerSecond = requestsPerSecond
            self.caFile = caFile
        }
    }

    /// Answers larger than this are not Apple's (a page holds at most 20 signed objects).
    public static let maxAnswerBytes = 8 << 20
    public static let userAgent = "revenuedot"
    /// Idle connections kept for reuse; more are closed once answered.
    static let maxPooledConnections = 4

    public let configuration: Configuration
    /// The app's request rates in this environment, per endpoint; shared with other clients of
    /// the app and environment when the caller passes them.
    public let rateLimits: EndpointRateLimits
    private let connections: ConnectionPool
    private let random: @Sendable () -> Double
    let clock: @Sendable () -> Date
    /// Told of each failed attempt that is tried again, and after how many seconds (a command
    /// says so rather than stay silent through the retries).
    private let onRetry: (@Sendable (AppStoreServerAPIError, Double) -> Void)?
    /// Told of each attempt: the endpoint's name and what came of it (a server counts them).
    private let onAttempt: (@Sendable (String, AttemptOutcome) -> Void)?
    /// Ends the waits between attempts, and the attempts, when the owner stops.
    private let cancellation: CallCancellation

    /// What one attempt at a call came to.
    public enum AttemptOutcome: Sendable, Equatable {
        /// Apple answered with this HTTP status.
        case answered(Int)
        /// No answer: the connection failed or timed out.
        case noAnswer
        /// Not sent: a 429 holds the endpoint back for longer than the call may wait.
        case heldBack
    }

    /// - Parameter rateLimits: the app's rates in `configuration.environment` when shared with
    ///   other clients (their environment must be the configuration's); rates of its own from
    ///   `configuration.requestsPerSecond` when nil.
    public init(
        _ configuration: Configuration, rateLimits: EndpointRateLimits? = nil, clock: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        onRetry: (@Sendable (AppStoreServerAPIError, Double) -> Void)? = nil,
        onAttempt: (@Sendable (String, AttemptOutcome) -> Void)? = nil, cancellation: CallCancellation = CallCancellation()
    ) throws(AppStoreServerAPIError) {
        self.cancellation = cancellation
        self.configuration = configuration
        self.clock = clock
        self.random = random
        self.onRetry = onRetry
        self.onAttempt = onAttempt
        if let rateLimits, rateLimits.environment != configuration.environment {
            let mismatch = "\(rateLimits.environment.rawValue) rate limits for a \(configuration.environment.rawValue) client"
            throw AppStoreServerAPIError(.configuration(mismatch), endpoint: "client")
        }
        self.rateLimits =
            rateLimits ?? EndpointRateLimits(environment: configuration.environment, cap: configuration.requestsPerSecond)
        let tls: TLSClientContext?
        if configuration.baseURL.usesTLS {
            do {
                tls = try TLSClientContext(caFile: configuration.caFile)
            } catch {
                throw AppStoreServerAPIError(.configuration("TLS: \(error)"), endpoint: "client")
            }
        } else {
            tls = nil
        }
        connections = ConnectionPool(
            host: configuration.baseURL.host, port: configuration.baseURL.port, tls: tls, maxIdle: Self.maxPooledConnections)
    }

    // MARK: - Sending

    /// The body of Apple's 2xx answer to `endpoint`, retried as `RetryPolicy` decides. A 429
    /// holds the endpoint back for every client sharing `rateLimits` until the retry is due (or
    /// until Apple's `Retry-After`); a call held back longer than the policy's longest delay is
    /// not sent, and fails as rate limited.
    public func send(_ endpoint: Endpoint) throws(AppStoreServerAPIError) -> Data {
        let body: Data?
        do { body = try endpoint.body() } catch {
            throw AppStoreServerAPIError(.configuration("cannot encode the request: \(error)"), endpoint: endpoint.name)
        }
        var attempt = 0
        while true {
            attempt += 1
            try waitForTurn(endpoint, attemptsMade: attempt - 1)
            guard !cancellation.isCancelled else { throw stopped(endpoint, attemptsMade: attempt - 1) }
            let outcome: RetryPolicy.Attempt
            let failure: AppStoreServerAPIError
            switch exchange(endpoint, body: body) {
            case .answered(let response) where (200..<300).contains(response.status):
                onAttempt?(endpoint.name, .answered(response.status))
                return response.body
            case .answered(let response):
                onAttempt?(endpoint.name, .answered(response.status))
                let payload = try? JSONDecoder().decode(ErrorPayload.self, from: response.body)
                let code = payload?.errorCode.map(APIErrorCode.init)
                let retryAfter = Self.retryAfterSeconds(response.headers["retry-after"], now: clock())
                outcome = .failed(status: response.status, code: code, retryAfterSeconds: retryAfter)
                failure = AppStoreServerAPIError(
                    .api(status: response.status, code: code, message: payload?.errorMessage), endpoint: endpoint.name,
                    attempts: attempt, retryAfterSeconds: retryAfter)
            case .noAnswer(let reason):
                onAttempt?(endpoint.name, .noAnswer)
                outcome = .noAnswer
                failure = AppStoreServerAPIError(.noAnswer(reason), endpoint: endpoint.name, attempts: attempt)
            }
            let decision = configuration.retry.decide(after: attempt, outcome, jitter: random())
            if case .failed(429, _, let retryAfter) = outcome {
                let hold: Double
                switch decision {
                case .retry(let seconds): hold = seconds
                case .giveUp: hold = min(retryAfter ?? configuration.retry.maximumDelaySeconds, Self.longestHoldSeconds)
                }
                rateLimits.holdBack(endpoint, until: Self.monotonicSeconds() + hold)
            }
            switch decision {
            case .giveUp: throw failure
            case .retry(let seconds):
                onRetry?(failure, seconds)
                guard cancellation.wait(seconds) else { throw stopped(endpoint, attemptsMade: attempt) }
            }
        }
    }

    /// The failure of a call its owner's stop cut short (`CallCancellation`).
    private func stopped(_ endpoint: Endpoint, attemptsMade: Int) -> AppStoreServerAPIError {
        AppStoreServerAPIError(
            .noAnswer("not tried again: the caller is stopping"), endpoint: endpoint.name, attempts: attemptsMade)
    }

    /// The longest a 429 holds an endpoint back: Apple counts its limits over an hour, and a
    /// `Retry-After` further off (a clock skewed, a bogus header) would stop the endpoint for good.
    static let longestHoldSeconds: Double = 3600

    /// Waits for `endpoint`'s turn: its rate, and any hold a 429 put on it, read again after each
    /// wait (a 429 another client met meanwhile may hold it longer). A hold longer than the
    /// policy's longest delay fails the call unsent, taking no token of the rate.
    private func waitForTurn(_ endpoint: Endpoint, attemptsMade: Int) throws(AppStoreServerAPIError) {
        let longest = configuration.retry.maximumDelaySeconds
        func refusal(_ held: Double) -> AppStoreServerAPIError {
            let message = "not sent: Apple answered 429 and holds this endpoint back \(Int(held.rounded(.up))) s more"
            return AppStoreServerAPIError(
                .api(status: 429, code: .rateLimitExceeded, message: message), endpoint: endpoint.name,
                attempts: attemptsMade, retryAfterSeconds: held)
        }
        let now = Self.monotonicSeconds()
        guard var wait = rateLimits.reserve(endpoint, now: now, longestHold: longest) else {
            onAttempt?(endpoint.name, .heldBack)
            throw refusal(rateLimits.heldBack(endpoint, now: now))
        }
        while wait > 0 {
            guard cancellation.wait(wait) else { throw stopped(endpoint, attemptsMade: attemptsMade) }
            wait = rateLimits.heldBack(endpoint, now: Self.monotonicSeconds())
            if wait > longest {
                onAttempt?(endpoint.name, .heldBack)
                throw refusal(wait)
            }
        }
    }

    /// `Retry-After` as seconds to wait: Apple documents a UNIX time in milliseconds; HTTP's
    /// delay in seconds is read too. Nil when absent or not a number.
    static func retryAfterSeconds(_ value: String?, now: Date) -> Double? {
        guard let value, let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite, number >= 0
        else { return nil }
        // Any plausible UNIX time in ms is past 10^11; no delay in seconds is.
        if number > 100_000_000_000 { return max(0, number / 1000 - now.timeIntervalSince1970) }
        return number
    }

    /// One attempt: a token, a pooled connection (a new one if a reused one turns out closed),
    /// the whole answer within `timeoutSeconds`.
    private func exchange(_ endpoint: Endpoint, body: Data?) -> Exchange {
        let base = configuration.baseURL
        let token: String
        do { token = try configuration.token.make(now: clock()) } catch {
            return .noAnswer("cannot sign the request token: \(error)")
        }
        var headers = [
            "Authorization": "Bearer \(token)", "Accept": "application/json", "User-Agent": Self.userAgent,
            "Host": base.hostHeader,
        ]
        if body != nil { headers["Content-Type"] = "application/json" }
        let deadline = DispatchTime.now() + configuration.timeoutSeconds
        let limits = ExchangeLimits(deadline: deadline, maxBodyBytes: Self.maxAnswerBytes)
        do {
            let response = try connections.request(
                endpoint.method, base.pathPrefix + endpoint.target, headers: headers, body: body ?? Data(), limits: limits,
                timeoutSeconds: configuration.timeoutSeconds, deadline: deadline)
            guard !response.isTruncated else { return .noAnswer("an answer over \(Self.maxAnswerBytes) bytes") }
            return .answered(response)
        } catch let failure where failure.whileConnecting {
            return .noAnswer("cannot connect to \(base): \(failure)")
        } catch {
            return .noAnswer("\(error)")
        }
    }

    /// One attempt's result.
    private enum Exchange {
        case answered(LoopbackResponse)
        case noAnswer(String)
    }

    private static func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    // MARK: - Decoding and verifying

    func decode<T: Decodable>(_ type: T.Type, _ data: Data, _ endpoint: Endpoint) throws(AppStoreServerAPIError) -> T {
        do {
            return try JSONValueDecoder().decode(T.self, from: data)
        } catch {
            throw AppStoreServerAPIError(.invalidAnswer("\(error)"), endpoint: endpoint.name)
        }
    }

    /// Verifies one signed object of an answer.
    func verified<T>(
        _ endpoint: Endpoint, _ body: () throws(VerificationError) -> T
    ) throws(AppStoreServerAPIError) -> T {
        do { return try body() } catch { throw AppStoreServerAPIError(.verification(error), endpoint: endpoint.name) }
    }

    var verifier: SignedDataVerifier { configuration.verifier }
}
