import Foundation
import Testing

@testable import Server
@testable import Tools

/// How a webhook test reaches its receiver: plain http to the receiver's address, or https by
/// host name through a `TLSProxy` whose certificate the sender trusts through `caFile`.
enum Transport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case plain, tls

    var testDescription: String { rawValue }

    /// The receiver's URL on this transport, and what to stop after the test (the proxy, if any).
    func url(port: UInt16, plainURL: String) throws -> (url: String, proxy: TLSProxy?) {
        guard self == .tls else { return (plainURL, nil) }
        let proxy = try TLSProxy(upstreamPort: port)
        return (proxy.url, proxy)
    }

    /// A webhook configuration for `url` (trusting the test CA for https).
    func config(_ url: String, timeoutSeconds: Int) throws -> WebhookConfig {
        WebhookConfig(
            url: URL(string: url)!, authorization: "Bearer secret-token", signingSecret: "s",
            timeoutSeconds: timeoutSeconds, retryDelaysSeconds: [1], concurrency: 2,
            caFile: self == .tls ? try TestCertificates.shared().caFile : nil)
    }
}
