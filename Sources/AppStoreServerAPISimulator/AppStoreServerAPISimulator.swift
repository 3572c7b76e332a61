import AppStore
import AppStoreServerAPI
import Foundation
import HTTP

/// A local App Store Server API over a `SimulatedAppStore`: Apple's paths, JSON shapes, paging
/// and error codes, tokens checked as Apple checks them (401 otherwise), signed data over the
/// store's chain, and faults on request (429 with `Retry-After`, 5xx, slow answers).
public final class AppStoreServerAPISimulator: Sendable {
    public let store: SimulatedAppStore
    public let tokens: TokenCheck
    private let server: HTTPServer

    /// Rows in a page, as Apple serves them.
    public static let pageSize = 20

    /// - Parameter refresh: runs before each request is answered (what feeds `store` from
    ///   outside, such as `simulate apple-api`'s journal, so an answer holds all written before it).
    public init(
        store: SimulatedAppStore, tokens: TokenCheck, host: String = "127.0.0.1", port: UInt16 = 0,
        refresh: (@Sendable () -> Void)? = nil
    ) {
        self.store = store
        self.tokens = tokens
        var configuration = HTTPServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.threads = 8
        var router = Router()
        let routes:
            [(String, String, String, @Sendable (SimulatedAppStore, HTTPRequest, SimulatedAppStore.App) -> HTTPResponse)] = [
                ("GET", "/inApps/v1/transactions/{id}", "transaction-info", AppleAPIHandlers.transactionInfo),
                ("GET", "/inApps/v2/history/{id}", "transaction-history", AppleAPIHandlers.transactionHistory),
                ("GET", "/inApps/v1/subscriptions/{id}", "subscription-statuses", AppleAPIHandlers.subscriptionStatuses),
                ("POST", "/inApps/v1/notifications/history", "notification-history", AppleAPIHandlers.notificationHistory),
                ("POST", "/inApps/v1/notifications/test", "request-test-notification", AppleAPIHandlers.requestTestNotification),
                (
                    "GET", "/inApps/v1/notifications/test/{token}", "test-notification-status",
                    AppleAPIHandlers.testNotificationStatus
                ),
                ("PUT", "/inApps/v2/transactions/consumption/{id}", "send-consumption", AppleAPIHandlers.sendConsumption),
                ("PUT", "/inApps/v1/transactions/consumption/{id}", "send-consumption-v1", AppleAPIHandlers.sendConsumptionV1),
                ("PUT", "/inApps/v1/subscriptions/extend/{id}", "extend-renewal-date", AppleAPIHandlers.extendRenewalDate),
                ("POST", "/inApps/v1/subscriptions/extend/mass", "mass-extend-renewal-date", AppleAPIHandlers.massExtend),
                (
                    "GET", "/inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}", "mass-extend-status",
                    AppleAPIHandlers.massExtendStatus
                ),
                ("GET", "/inApps/v1/lookup/{orderId}", "look-up-order", AppleAPIHandlers.lookUpOrder),
                ("GET", "/inApps/v2/refund/lookup/{id}", "refund-history", AppleAPIHandlers.refundHistory),
                (
                    "PUT", "/inApps/v1/transactions/{id}/appAccountToken", "set-app-account-token",
                    AppleAPIHandlers.setAppAccountToken
                ),
            ]
        for (method, pattern, name, handler) in routes {
            router.add(method, pattern) { [store, tokens] request in
                refresh?()
                return Self.serve(request, name: name, store: store, tokens: tokens, handler)
            }
        }
        server = HTTPServer(configuration: configuration, router: router)
    }

    /// Starts listening; returns the port.
    @discardableResult
    public func start() throws -> UInt16 { try server.start() }

    public var port: UInt16 { server.port }

    public func shutdown() { server.shutdown(timeout: 5) }

    private static func serve(
        _ request: HTTPRequest, name: String, store: SimulatedAppStore, tokens: TokenCheck,
        _ handler: @Sendable (SimulatedAppStore, HTTPRequest, SimulatedAppStore.App) -> HTTPResponse
    ) -> HTTPResponse {
        store.state.withLock { $0.requests[name, default: 0] += 1 }
        let bundleId: String
        do {
            bundleId = try tokens.check(authorization: request.header("authorization"), now: store.clock())
        } catch {
            return HTTPResponse(status: 401, headers: ["Content-Type": "text/plain"], body: Data("Unauthenticated\n".utf8))
        }
        guard let app = store.app(bundleId) else { return AppleAPIHandlers.error(404, 4_040_003, "App not found.") }
        // A fault is for a request Apple would have served: one refused for its token leaves it.
        let fault = store.state.withLock { state -> SimulatedAppStore.Fault? in
            guard let index = state.faults.firstIndex(where: { $0.endpoint == nil || $0.endpoint == name }) else { return nil }
            return state.faults.remove(at: index).fault
        }
        switch fault {
        case .status(let status, let code, let retryAfter):
            var response =
                code.map { AppleAPIHandlers.error(status, $0, "Simulated failure.") } ?? HTTPResponse(status: status)
            if let retryAfter { response.headers["Retry-After"] = retryAfter }
            return response
        case .delay(let seconds):
            Thread.sleep(forTimeInterval: seconds)
        case nil:
            break
        }
        return handler(store, request, app)
    }
}
