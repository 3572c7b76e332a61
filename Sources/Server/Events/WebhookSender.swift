import Foundation
import LoopbackClient
import Storage

/// POSTs webhook bodies to one app's URL.
///
/// Every URL, http or https, to a host name or an address, goes through one client of our own
/// (`LoopbackConnection`) over pooled keep-alive connections: the host is resolved with the
/// system resolver and its addresses tried in order; https runs TLS 1.2 or later over OpenSSL,
/// verifying the receiver's certificate against the system's CA store, or only against
/// `WebhookConfig.caFile` when one is configured, and checking that it names the URL's host.
/// A blocking HTTP/1.1 exchange costs a fraction of a general-purpose client's machinery, which
/// matters when deliveries must keep up with ingest on the same cores, and every byte the
/// receiver sends is read by code that bounds it. `send` blocks the calling delivery thread
/// until the answer or the deadline.
///
/// Each attempt is bounded, so that one slow or hostile receiver holds a delivery thread (and
/// with it the app's other customers) for at most `timeoutSeconds`:
/// - **Deadline**: `timeoutSeconds` bounds the whole attempt (resolving the host, connecting,
///   the TLS handshake, sending the event, reading the answer), however steadily the receiver
///   trickles bytes. An attempt not answered by then fails with "no answer within N s" and is
///   retried on the app's schedule. A host name whose resolution outlasts the deadline fails the
///   attempt at the deadline; the lookup itself goes on in the background until the system
///   resolver gives up (`AddressResolver`).
/// - **Answer size**: the head (at most 64 KiB, else malformed) and at most
///   `maxResponseBodyBytes` (64 KiB) of body are read; nothing past the limit is read, so memory
///   is bounded whatever the receiver sends. An attempt is answered once the head and either the
///   whole body or its first 64 KiB have arrived by the deadline; the status then decides. A
///   longer body is not read further and its connection is closed, not pooled: the receiver has
///   answered, and failing the attempt would only resend an event it accepted, on every retry,
///   until the event is dead-lettered. A body cut short (the receiver closed, or the deadline
///   passed) is no answer, and the event goes again: at-least-once delivery prefers a duplicate
///   to a loss.
/// - **Redirects** are never followed: a 3xx is a failed attempt whose reason quotes the
///   `Location` (`WebhookAnswer`).
/// - **Malformed answers** (a status, `Content-Length` or chunk size that is not a count in
///   range) fail the attempt (`ResponseReader`).
/// - **Refused certificates** (untrusted, expired, for another host) fail the attempt before
///   anything of the event is sent, with OpenSSL's reason.
package final class WebhookSender: Sendable {
    /// The most body bytes of an answer read; see the type's documentation for what a longer
    /// body means.
    package static let maxResponseBodyBytes = 64 * 1024

    package let config: WebhookConfig
    /// Where attempts go and the TLS context they share, or why none can go.
    private let route: Result<Route, WebhookTarget.Refusal>

    private struct Route: Sendable {
        package var target: WebhookTarget
        package var pool: ConnectionPool
    }

    package init(config: WebhookConfig) {
        self.config = config
        route = Result { () throws(WebhookTarget.Refusal) in
            let target = try WebhookTarget(config.url)
            let tls: TLSClientContext?
            do {
                tls = target.usesTLS ? try TLSClientContext(caFile: config.caFile) : nil
            } catch {
                throw WebhookTarget.Refusal(reason: "no TLS context: \(error)")
            }
            return Route(target: target, pool: ConnectionPool(host: target.host, port: target.port, tls: tls))
        }
    }

    /// Sends one body; success is a 2xx answered within `timeoutSeconds`.
    package func send(_ body: Data, eventId: String, at now: Date) -> DeliveryOutcome {
        let deadline = DispatchTime.now() + .seconds(config.timeoutSeconds)
        let route: Route
        switch self.route {
        case .success(let ready): route = ready
        case .failure(let refusal): return .failed(status: nil, reason: "not sent: \(refusal.reason)")
        }
        var headers = [
            "Content-Type": "application/json", "User-Agent": "RevenueDot", "Host": route.target.hostHeader,
        ]
        if let authorization = config.authorization { headers["Authorization"] = authorization }
        if let secret = config.signingSecret {
            let signature = WebhookSignature.value(body: body, secret: secret, at: Int64(now.timeIntervalSince1970))
            headers[WebhookSignature.header] = signature
            headers[WebhookSignature.revenueCatHeader] = signature
        }
        return send(body, headers: headers, over: route, by: deadline)
    }

    private var noAnswerInTime: DeliveryOutcome {
        .failed(status: nil, reason: "no answer within \(config.timeoutSeconds) s")
    }

    /// Over a pooled connection (`ConnectionPool`: a reused one the server had closed is replaced
    /// once, a keep-alive race and not an answer; any answer read, even partly, is final).
    private func send(_ body: Data, headers: [String: String], over route: Route, by deadline: DispatchTime)
        -> DeliveryOutcome
    {
        let limits = ExchangeLimits(deadline: deadline, maxBodyBytes: Self.maxResponseBodyBytes)
        do {
            let response = try route.pool.request(
                "POST", route.target.path, headers: headers, body: body, limits: limits,
                timeoutSeconds: Double(config.timeoutSeconds), deadline: deadline)
            return WebhookAnswer(status: response.status, location: response.headers["location"]).outcome
        } catch let failure where failure.isTimeout {
            return noAnswerInTime
        } catch let failure where failure.whileConnecting {
            return .failed(status: nil, reason: "no answer: cannot connect to \(route.target.hostHeader) (\(failure))")
        } catch {
            return .failed(status: nil, reason: "no answer: \(error)")
        }
    }
}
