import AppStore
import Crypto
import Dispatch
import Foundation
import JSON
import Synchronization
import Testing

@testable import AppStoreServerAPI
@testable import AppStoreServerAPISimulator

/// Retries, holds and trust: how the client behaves when Apple refuses, fails or lies (the
/// tokens: `APITokenTests`; the rates themselves, as values: `RateLimitTests`).
@Suite("App Store Server API client behaviour")
struct ClientBehaviourTests {
    // MARK: - Retries

    @Test func rateLimitsAndServerErrorsAreRetried() throws {
        let fixture = try APIFixture()
        fixture.store.addTransaction(APIFixture.transaction("1"), bundleId: APIFixture.bundleId)
        fixture.store.inject(.status(429, code: 4_290_000, retryAfter: "0"), count: 2)
        #expect(try fixture.client.transactionInfo("1").payload.transactionId == "1")
        #expect(fixture.store.requestCount("transaction-info") == 3)

        fixture.store.inject(.status(500, code: 5_000_001, retryAfter: nil), count: 1)
        fixture.store.inject(.status(503, code: nil, retryAfter: nil), count: 1)
        _ = try fixture.client.transactionInfo("1")
        #expect(fixture.store.requestCount("transaction-info") == 6)

        fixture.store.inject(.status(503, code: nil, retryAfter: nil), count: 10)
        do {
            _ = try fixture.client.transactionInfo("1")
            Issue.record("ten 503s in a row were not a failure")
        } catch {
            #expect(error.status == 503)
            #expect(error.attempts == 4)
            #expect(error.description.hasSuffix("(after 4 attempts)"))
        }
    }

    /// A stop (`CallCancellation`) ends the wait before the next attempt at once, and no call
    /// makes an attempt after it: a server stopping does not wait out retries.
    @Test func aCancelledCallEndsItsWaitAndTriesNoMore() throws {
        let cancellation = CallCancellation()
        let fixture = try APIFixture(
            retry: RetryPolicy(maxAttempts: 5, baseDelaySeconds: 10, maximumDelaySeconds: 30), cancellation: cancellation)
        fixture.store.inject(.status(503, code: nil, retryAfter: nil), count: 10)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { cancellation.cancel() }
        let started = Date()
        do {
            _ = try fixture.client.transactionInfo("1")
            Issue.record("a cancelled call answered")
        } catch {
            #expect(error.description.contains("not tried again: the caller is stopping"), "\(error)")
            #expect(error.attempts == 1)
        }
        #expect(Date().timeIntervalSince(started) < 3, "the wait of 5 s or more went on after the stop")
        #expect(throws: AppStoreServerAPIError.self) { _ = try fixture.client.transactionInfo("1") }
        #expect(fixture.store.requestCount("transaction-info") == 1)
    }

    @Test func errorsAppleCallsFinalAreNotRetriedAndRetryableOnesAre() throws {
        let fixture = try APIFixture()
        #expect(throws: AppStoreServerAPIError.self) { _ = try fixture.client.transactionInfo("404") }
        #expect(fixture.store.requestCount("transaction-info") == 1)
        fixture.store.addTransaction(APIFixture.transaction("2"), bundleId: APIFixture.bundleId)
        fixture.store.inject(.status(404, code: 4_040_006, retryAfter: nil), count: 1)
        _ = try fixture.client.transactionInfo("2")
        #expect(fixture.store.requestCount("transaction-info") == 3)
    }

    @Test func retryAfterAsAppleWritesItIsHonoured() throws {
        let fixture = try APIFixture()
        fixture.store.addTransaction(APIFixture.transaction("1"), bundleId: APIFixture.bundleId)
        let until = Int64(Date().timeIntervalSince1970 * 1000) + 400
        fixture.store.inject(.status(429, code: 4_290_000, retryAfter: String(until)), count: 1)
        let started = Date()
        _ = try fixture.client.transactionInfo("1")
        #expect(Date().timeIntervalSince(started) >= 0.3)
        // One past the client's longest wait fails the call, saying how long Apple asked for.
        let later = Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000
        fixture.store.inject(.status(429, code: 4_290_000, retryAfter: String(later)), count: 1)
        do {
            _ = try fixture.client.transactionInfo("1")
            Issue.record("a 429 an hour long was waited for")
        } catch {
            #expect(error.status == 429)
            #expect((3_590...3_600).contains(error.retryAfterSeconds ?? 0), "\(error.retryAfterSeconds ?? -1)")
        }
    }

    /// A 429 holds its endpoint back for every client sharing the app's limits: a call made
    /// during the hold waits for it, or is not sent at all when the hold is longer than the
    /// client's longest delay; other endpoints go on.
    @Test func aRateLimitHoldsTheEndpointBackForEveryClient() throws {
        let fixture = try APIFixture(retry: RetryPolicy(maxAttempts: 1, baseDelaySeconds: 0.01, maximumDelaySeconds: 0.4))
        fixture.store.addTransaction(APIFixture.transaction("1"), bundleId: APIFixture.bundleId)
        // A second client of the app, sharing its limits, as the server's workers do; it tells
        // of each attempt, as the server's metrics count them.
        let attempts = Mutex<[String]>([])
        let other = try AppStoreServerAPIClient(
            fixture.client.configuration, rateLimits: fixture.client.rateLimits,
            onAttempt: { endpoint, outcome in attempts.withLock { $0.append("\(endpoint) \(outcome)") } })
        fixture.store.inject(.status(429, code: 4_290_000, retryAfter: nil), count: 1, endpoint: "transaction-info")
        #expect(throws: AppStoreServerAPIError.self) { _ = try fixture.client.transactionInfo("1") }
        // No Retry-After: held for the longest delay, then sent.
        let started = Date()
        #expect(try other.transactionInfo("1").payload.transactionId == "1")
        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(fixture.store.requestCount("transaction-info") == 2)

        let hour = Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000
        fixture.store.inject(.status(429, code: 4_290_000, retryAfter: String(hour)), count: 1, endpoint: "transaction-info")
        #expect(throws: AppStoreServerAPIError.self) { _ = try fixture.client.transactionInfo("1") }
        #expect(fixture.store.requestCount("transaction-info") == 3)
        do {
            _ = try other.transactionInfo("1")
            Issue.record("a call was sent during Apple's hour-long 429")
        } catch {
            #expect(error.status == 429)
            #expect(error.attempts == 0)
            #expect((3_590...3_600).contains(error.retryAfterSeconds ?? 0), "\(error.retryAfterSeconds ?? -1)")
        }
        #expect(fixture.store.requestCount("transaction-info") == 3)
        #expect(attempts.withLock { $0 } == ["transaction-info answered(200)", "transaction-info heldBack"])
        // Another endpoint is not held back.
        _ = try fixture.client.transactionHistory("1")
        #expect(fixture.store.requestCount("transaction-history") == 1)
    }

    /// A call waiting out a short hold reads the hold again before it sends: another client's
    /// 429 may have made it long meanwhile. A Retry-After past an hour holds for an hour.
    @Test func aHoldIsReadAgainAfterWaitingAndLastsAtMostAnHour() throws {
        let fixture = try APIFixture(retry: RetryPolicy(maxAttempts: 1, baseDelaySeconds: 0.01, maximumDelaySeconds: 2))
        fixture.store.addTransaction(APIFixture.transaction("1"), bundleId: APIFixture.bundleId)
        let info = Endpoint.transactionInfo(transactionId: "1")
        let limits = fixture.client.rateLimits
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        limits.holdBack(info, until: now + 1)
        // On a thread of its own: the global queue may be busy with other tests.
        let other = Thread {
            Thread.sleep(forTimeInterval: 0.1)
            limits.holdBack(info, until: now + 600)
        }
        other.start()
        do {
            _ = try fixture.client.transactionInfo("1")
            Issue.record("a call was sent during a hold made while it waited")
        } catch {
            #expect(error.status == 429)
            #expect(error.attempts == 0)
        }
        #expect(fixture.store.requestCount("transaction-info") == 0)

        let tenHours = Int64(Date().timeIntervalSince1970 * 1000) + 36_000_000
        fixture.store.inject(.status(429, code: 4_290_000, retryAfter: String(tenHours)), count: 1, endpoint: "look-up-order")
        #expect(throws: AppStoreServerAPIError.self) { _ = try fixture.client.lookUpOrderId("A") }
        let held = limits.heldBack(.lookUpOrderId(orderId: "A"), now: Double(DispatchTime.now().uptimeNanoseconds) / 1e9)
        #expect(held > 3_500 && held <= 3_600, "\(held)")
    }

    @Test func aSlowAnswerIsNoAnswerAndIsRetried() throws {
        let fixture = try APIFixture(timeoutSeconds: 0.3)
        fixture.store.addTransaction(APIFixture.transaction("1"), bundleId: APIFixture.bundleId)
        fixture.store.inject(.delay(1.0), count: 1)
        #expect(try fixture.client.transactionInfo("1").payload.transactionId == "1")
        #expect(fixture.store.requestCount("transaction-info") == 2)
    }

    // MARK: - Trust

    @Test func signedDataThatDoesNotVerifyIsRefusedWhole() throws {
        let fixture = try APIFixture(trustedRoot: try TestChain(name: "Elsewhere").root)
        fixture.store.addTransaction(APIFixture.transaction("1"), bundleId: APIFixture.bundleId)
        do {
            _ = try fixture.client.transactionInfo("1")
            Issue.record("data signed under an untrusted root was accepted")
        } catch {
            guard case .verification(let failure) = error.kind else {
                Issue.record("\(error)")
                return
            }
            #expect(failure.status == .verificationFailure)
        }
    }

    // MARK: - Decisions as values

    @Test(
        arguments: [
            (1, RetryPolicy.Attempt.noAnswer, 0.0, RetryPolicy.Decision.retry(afterSeconds: 0.25)),
            (2, .failed(status: 500, code: nil, retryAfterSeconds: nil), 1.0, .retry(afterSeconds: 1.0)),
            (3, .failed(status: 429, code: nil, retryAfterSeconds: 7), 0.5, .retry(afterSeconds: 7)),
            (3, .failed(status: 429, code: nil, retryAfterSeconds: 700), 0.5, .giveUp),
            (3, .failed(status: 429, code: nil, retryAfterSeconds: 0), 0.5, .retry(afterSeconds: 1.5)),
            // No Retry-After: Apple counts over an hour, so not seconds later but the longest delay.
            (1, .failed(status: 429, code: nil, retryAfterSeconds: nil), 0.0, .retry(afterSeconds: 15)),
            (2, .failed(status: 429, code: APIErrorCode(4_290_000), retryAfterSeconds: nil), 1.0, .retry(afterSeconds: 30)),
            (5, .failed(status: 429, code: nil, retryAfterSeconds: nil), 0.5, .giveUp),
            (4, .failed(status: 500, code: nil, retryAfterSeconds: nil), 0.5, .retry(afterSeconds: 3)),
            (5, .failed(status: 500, code: nil, retryAfterSeconds: nil), 0.5, .giveUp),
            (1, .failed(status: 400, code: APIErrorCode(4_000_006), retryAfterSeconds: nil), 0.5, .giveUp),
            (1, .failed(status: 404, code: APIErrorCode(4_040_002), retryAfterSeconds: nil), 0.0, .retry(afterSeconds: 0.25)),
            (1, .failed(status: 401, code: nil, retryAfterSeconds: nil), 0.0, .giveUp),
        ] as [(Int, RetryPolicy.Attempt, Double, RetryPolicy.Decision)])
    func retryDecisions(attempt: Int, outcome: RetryPolicy.Attempt, jitter: Double, decision: RetryPolicy.Decision) {
        #expect(RetryPolicy().decide(after: attempt, outcome, jitter: jitter) == decision)
    }

    @Test func targetsEscapeValuesAndRepeatFilters() {
        let filter = TransactionHistoryRequest(
            startDate: 1, productIds: ["a b", "c"], productTypes: [.autoRenewable], sort: .descending, revoked: false)
        #expect(
            Endpoint.transactionHistory(transactionId: "1/2", filter: filter, revision: "r20").target
                == "/inApps/v2/history/1%2F2?revision=r20&startDate=1&productId=a%20b&productId=c&productType=AUTO_RENEWABLE&sort=DESCENDING&revoked=false"
        )
        #expect(
            Endpoint.allSubscriptionStatuses(transactionId: "9", statuses: [.active, .billingRetry]).target
                == "/inApps/v1/subscriptions/9?status=1&status=3")
        #expect(
            Endpoint.renewalDateExtensionStatus(productId: "p", requestIdentifier: "r").path
                == "/inApps/v1/subscriptions/extend/mass/p/r")
        #expect(Endpoint.requestTestNotification.method == "POST")
        #expect(Endpoint.setAppAccountToken(originalTransactionId: "1", .init(appAccountToken: "x")).method == "PUT")
    }

    @Test func retryAfterIsReadAsUNIXMillisecondsOrSeconds() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(AppStoreServerAPIClient.retryAfterSeconds("1800000002500", now: now) == 2.5)
        #expect(AppStoreServerAPIClient.retryAfterSeconds("1799999999000", now: now) == 0)
        #expect(AppStoreServerAPIClient.retryAfterSeconds("12", now: now) == 12)
        #expect(AppStoreServerAPIClient.retryAfterSeconds("soon", now: now) == nil)
        #expect(AppStoreServerAPIClient.retryAfterSeconds("-1", now: now) == nil)
        #expect(AppStoreServerAPIClient.retryAfterSeconds(nil, now: now) == nil)
        // A failure says how long Apple asked to wait, so a run stopped by it says when to resume.
        let limited = AppStoreServerAPIError(
            .api(status: 429, code: APIErrorCode(4_290_000), message: nil), endpoint: "get-transaction-info",
            retryAfterSeconds: 7_199.5)
        #expect(limited.description.contains("Apple answered 429"), "\(limited)")
        #expect(limited.description.contains("(Apple asks to wait 7200 s before trying again)"), "\(limited)")
    }

    @Test func errorCodesHaveApplesNames() {
        #expect(APIErrorCode(4_040_010).name == "TransactionIdNotFoundError")
        #expect(APIErrorCode(4_290_000).isRetryable)
        #expect(APIErrorCode(5_000_001).isRetryable)
        #expect(!APIErrorCode(5_000_000).isRetryable)
        #expect(APIErrorCode(9_990_000).name == nil)
        #expect(APIErrorCode(9_990_000).description == "9990000")
    }

}

extension ClientBehaviourTests {
    /// A failure every call would meet stops a run over many; one about an id (Apple's
    /// retryable "not found yet" codes included) does not.
    @Test(
        arguments: [
            (AppStoreServerAPIError.Kind.noAnswer("timed out"), true),
            (.api(status: 500, code: nil, message: nil), true),
            (.api(status: 503, code: nil, message: nil), true),
            (.api(status: 401, code: nil, message: nil), true),
            (.api(status: 429, code: APIErrorCode(4_290_000), message: nil), true),
            (.api(status: 404, code: APIErrorCode(4_040_004), message: nil), true),
            (.api(status: 404, code: APIErrorCode(4_040_006), message: nil), false),
            (.api(status: 404, code: APIErrorCode(4_040_002), message: nil), false),
            (.api(status: 404, code: APIErrorCode(4_040_010), message: nil), false),
            (.api(status: 400, code: APIErrorCode(4_000_006), message: nil), false),
            (.invalidAnswer("not JSON"), false),
        ] as [(AppStoreServerAPIError.Kind, Bool)])
    func whatFailsEveryCall(kind: AppStoreServerAPIError.Kind, every: Bool) {
        #expect(AppStoreServerAPIError(kind, endpoint: "transaction-info").failsEveryCall == every)
    }
}
