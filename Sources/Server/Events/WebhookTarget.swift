import Foundation

/// Where an app's webhooks go, taken apart from its URL for `LoopbackConnection`.
package struct WebhookTarget: Sendable, Equatable {
    /// A host name, or an IPv4 or IPv6 literal (without brackets).
    package var host: String
    package var port: UInt16
    /// The path and query, percent-encoded as in the URL; "/" when the URL has no path.
    package var path: String
    package var usesTLS: Bool
    /// The `Host` header: the port is left out when it is the scheme's default.
    package var hostHeader: String

    /// Why a URL cannot be a target.
    package struct Refusal: Error, Equatable {
        package var reason: String
    }

    package init(_ url: URL) throws(Refusal) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw Refusal(reason: "\(url) is not an http or https URL")
        }
        guard var host = url.host, !host.isEmpty else { throw Refusal(reason: "\(url) has no host") }
        // Credentials in a URL would be dropped: `authorization` is where they go.
        guard url.user == nil, url.password == nil else { throw Refusal(reason: "\(url) has user information") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let defaultPort: UInt16 = scheme == "https" ? 443 : 80
        // Configuration refuses another port; a URL made elsewhere gets a refusal, not a crash.
        guard let port = UInt16(exactly: url.port ?? Int(defaultPort)), port != 0 else {
            throw Refusal(reason: "\(url) has no valid port")
        }
        self.host = host
        self.port = port
        usesTLS = scheme == "https"
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let encoded = components?.percentEncodedPath ?? ""
        path = encoded.isEmpty ? "/" : encoded
        if let query = components?.percentEncodedQuery { path += "?\(query)" }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }
}
