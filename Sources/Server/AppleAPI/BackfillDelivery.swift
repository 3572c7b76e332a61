import AppStore
import Foundation
import JSON
import LoopbackClient

/// Where a backfill hands notifications: this process's ingest (no server has the database),
/// or the notification URL of the server that has it, as Apple would. Either way each one goes
/// through the same ingest path, so the result is the same.
package enum BackfillDelivery {
    package static func inProcess(_ ingest: Ingest, appId: String) -> Backfill.Deliver {
        { bodies in ingest.submit(appId: appId, bodies: bodies) }
    }

    /// POSTs to `/v1/apple/notifications/{appId}` of the server listening at `listen` (on
    /// loopback when it listens on every address).
    package static func overHTTP(listen: ListenAddress, appId: String) -> Backfill.Deliver {
        let host = RunningServer.host(of: listen)
        let path = "/v1/apple/notifications/" + RunningServer.pathComponent(appId)
        @Sendable func post(_ body: Data) -> IngestOutcome {
            let response: LoopbackResponse
            do {
                response = try LoopbackConnection(host: host, port: listen.port, timeoutSeconds: 70)
                    .request("POST", path, headers: ["Content-Type": "application/json"], body: body)
            } catch {
                return .unavailable("the server at \(listen) did not answer: \(error)")
            }
            let status = (try? JSONValue(parsing: response.body))?["status"]?.stringValue
            switch (response.status, status) {
            case (200, "duplicate"): return .duplicate(uuid: "")
            case (200, "held"): return .held(uuid: "", reason: "")
            case (200, "stored"): return .stored(uuid: "")
            case (400, _): return .badRequest(response.text)
            case (401, _): return .rejected(status: "verificationFailure", detail: response.text)
            case (404, _): return .unknownApp(appId)
            default: return .unavailable("the server at \(listen) answered \(response.status)")
            }
        }
        return { bodies in .done(bodies.map(post)) }
    }
}
