import HTTP
import JSON

/// What the HTTP server tells the service: counted in `metrics`; a notification POST the
/// server refused itself, before ingest saw it (a body over the limit, a framing it refuses),
/// also takes a `notification.refused` line, as ingest's own refusals do.
struct ServiceObserver: HTTPServerObserver {
    let metrics: Metrics
    let refusals: LimitedLines

    func requestFinished(method: String, route: String, status: Int, seconds: Double) {
        metrics.requestFinished(method: method, route: route, status: status, seconds: seconds)
    }

    func requestRefused(method: String, route: String, parameters: [String: String], status: Int) {
        metrics.requestRefused(method: method, route: route, parameters: parameters, status: status)
        guard route == Routes.notificationRoute else { return }
        let appId = parameters["appId"] ?? ""
        refusals.write(
            "refused before verification: \(Self.reasons[status] ?? "answered \(status)")",
            [("app", .text(String(appId.utf8Prefix(maxBytes: 200)))), ("status", .integer(Int64(status)))])
    }

    func connectionOpened() { metrics.connectionOpened() }
    func connectionClosed() { metrics.connectionClosed() }
    func connectionCutOff() { metrics.connectionCutOff() }

    private static let reasons = [
        400: "a request framing the server refuses", 413: "the body is over the limit",
        417: "an Expect the server does not meet", 501: "a Transfer-Encoding the server does not implement",
        503: "the server holds as many request bodies as it can; Apple sends it again",
    ]
}
