import AppStore
import Testing

@testable import AppStoreServerAPI

/// The client's request rates as values: Apple's limit per endpoint, a bucket per endpoint, and
/// the hold a 429 puts on one; time is passed in.
@Suite("App Store Server API rate limits")
struct RateLimitTests {
    @Test func theRateLimiterSpacesCallsAfterABurst() {
        let limiter = RateLimiter(requestsPerSecond: 10, now: 100)
        let waits = (0..<12).map { _ in limiter.reserve(now: 100) }
        #expect(waits.prefix(10).allSatisfy { $0 == 0 })
        #expect(abs(waits[10] - 0.1) < 1e-9)
        #expect(abs(waits[11] - 0.2) < 1e-9)
        #expect(limiter.reserve(now: 102) == 0)
        #expect(RateLimiter(requestsPerSecond: 0, now: 0).reserve(now: 0) == 0)
    }

    /// A hold delays an endpoint's calls until it ends, and the endpoint's rate then spaces
    /// them; asking how long it lasts takes no token, a later hold never shortens it, and other
    /// endpoints are not held.
    @Test func aHoldDelaysCallsAndTheRateThenSpacesThem() {
        let limits = EndpointRateLimits(environment: .production, cap: 2)
        let info = Endpoint.transactionInfo(transactionId: "1")
        let order = Endpoint.lookUpOrderId(orderId: "A")
        limits.holdBack(info, until: 10)
        limits.holdBack(info, until: 8)
        for _ in 0..<5 { #expect(limits.heldBack(info, now: 4) == 6) }
        #expect(limits.heldBack(order, now: 4) == 0)
        #expect((0..<4).map { _ in limits.reserve(info, now: 4) } == [6, 6, 6.5, 7])
        #expect(limits.reserve(order, now: 4) == 0)
        #expect(limits.heldBack(info, now: 11) == 0)
    }

    /// Apple's table (identifying-rate-limits): per app and endpoint, a tenth in Sandbox.
    @Test func eachEndpointHasApplesLimit() {
        let history = Endpoint.transactionHistory(transactionId: "1", filter: TransactionHistoryRequest(), revision: nil)
        #expect(history.appleRequestsPerSecond(in: .production) == 50)
        #expect(history.appleRequestsPerSecond(in: .sandbox) == 5)
        #expect(Endpoint.lookUpOrderId(orderId: "A").appleRequestsPerSecond(in: .production) == 10)
        #expect(Endpoint.requestTestNotification.appleRequestsPerSecond(in: .production) == 1)
        #expect(Endpoint.requestTestNotification.appleRequestsPerSecond(in: .sandbox) == 0.1)
    }

    /// One bucket per endpoint: a burst of history pages does not hold a status request back,
    /// and a cap lowers an endpoint's rate but never raises it past Apple's.
    @Test func rateLimitsAreKeptPerEndpoint() {
        let history = Endpoint.transactionHistory(transactionId: "1", filter: TransactionHistoryRequest(), revision: nil)
        let statuses = Endpoint.allSubscriptionStatuses(transactionId: "1", statuses: [])
        let sandbox = EndpointRateLimits(environment: .sandbox, cap: nil)
        let waits = (0..<6).compactMap { _ in sandbox.reserve(history, now: 100) }
        #expect(waits.count == 6)
        #expect(waits.prefix(5).allSatisfy { $0 == 0 })
        #expect(abs(waits[5] - 0.2) < 1e-9)
        #expect(sandbox.reserve(statuses, now: 100) == 0)
        #expect(EndpointRateLimits(environment: .production, cap: 10).requestsPerSecond(for: history) == 10)
        #expect(EndpointRateLimits(environment: .sandbox, cap: 10).requestsPerSecond(for: history) == 5)
        #expect(EndpointRateLimits(environment: .production, cap: nil).requestsPerSecond(for: history) == 50)
        let off = EndpointRateLimits(environment: .sandbox, cap: 0)
        #expect((0..<100).allSatisfy { _ in off.reserve(history, now: 0) == 0 })
    }
}
