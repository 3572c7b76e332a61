import Foundation

/// Where an App Store Server API environment is served: `https://api.storekit.apple.com`, or a
/// local server for tests and rehearsals (`http://127.0.0.1:PORT`).
public struct APIBaseURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    public var usesTLS: Bool
    /// A path the endpoints' paths go under ("" for Apple's hosts).
    public var pathPrefix: String

    public static let production = APIBaseURL(host: "api.storekit.apple.com", port: 443, usesTLS: true, pathPrefix: "")
    public static let sandbox = APIBaseURL(host: "api.storekit-sandbox.apple.com", port: 443, usesTLS: true, pathPrefix: "")

    public init(host: String, port: UInt16, usesTLS: Bool, pathPrefix: String) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.pathPrefix = pathPrefix
    }

    /// An `http` or `https` URL with a host and no user, query or fragment; nil otherwise.
    public init?(_ text: String) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var host = url.host, !host.isEmpty, url.user == nil, url.password == nil, url.query == nil,
            url.fragment == nil
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let defaultPort = scheme == "https" ? 443 : 80
        guard let port = UInt16(exactly: url.port ?? defaultPort), port != 0 else { return nil }
        var prefix = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.init(host: host, port: port, usesTLS: scheme == "https", pathPrefix: prefix)
    }

    /// The `Host` header.
    public var hostHeader: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port == (usesTLS ? 443 : 80) ? bracketed : "\(bracketed):\(port)"
    }

    public var description: String { "\(usesTLS ? "https" : "http")://\(hostHeader)\(pathPrefix)" }
}
