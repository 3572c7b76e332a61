import HTTP

/// Finds the app a request's `Authorization: Bearer <key>` belongs to, comparing keys in
/// constant time so response timing does not reveal how much of a key was right.
package struct APIKeys: Sendable {
    package enum Access: Sendable {
        /// The app's secret key: its backend.
        case secret
        /// The app's public key: the app itself.
        case publishable
    }

    private let apps: [AppConfig]

    package init(apps: [AppConfig]) { self.apps = apps }

    /// The app and the kind of key, or nil when the key matches no app.
    package func authenticate(_ request: HTTPRequest) -> (app: AppConfig, access: Access)? {
        // The scheme name is case-insensitive (RFC 9110, section 11.1): `bearer` is `Bearer`.
        guard let header = request.header("Authorization"), header.utf8.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { return nil }
        let presented = Array(header.dropFirst("Bearer ".count).utf8)
        var found: (AppConfig, Access)?
        // Every key is compared, whatever matched earlier, so the time does not depend on which.
        for app in apps {
            if let secret = app.secretApiKey, Self.equal(presented, Array(secret.utf8)) { found = (app, .secret) }
            if let key = app.publicApiKey, Self.equal(presented, Array(key.utf8)) { found = (app, .publishable) }
        }
        return found
    }

    /// Whether an app with this id is configured.
    package func configures(appId: String) -> Bool { apps.contains { $0.id == appId } }

    /// Constant-time equality for the length of the longer input.
    package static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(lhs.count == rhs.count ? 0 : 1)
        for index in 0..<max(lhs.count, rhs.count) {
            difference |= (index < lhs.count ? lhs[index] : 0) ^ (index < rhs.count ? rhs[index] : 0)
        }
        return difference == 0
    }

    package static let unauthorized = HTTPResponse.error(
        status: 401, code: "unauthorized", message: "Authorization: Bearer <the app's secret or public API key> is required")

    /// For the routes only the app's backend may call: the public key, which ships in the app, is not enough.
    package static let secretKeyRequired = HTTPResponse.error(
        status: 401, code: "unauthorized", message: "Authorization: Bearer <the app's secret API key> is required")
}
