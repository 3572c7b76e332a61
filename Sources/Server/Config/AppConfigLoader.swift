import AppStore
import Crypto
import Foundation
import Subscriptions

/// Reads and validates one entry of `apps`.
package enum AppConfigLoader {
    package static let keys: Set<String> = [
        "id", "bundleId", "appAppleId", "environments", "rootCertificates", "trackNewPurchasesFromServerNotifications",
        "secretApiKey", "publicApiKey", "entitlements", "productDisplayNames", "webhook", "inAppPurchaseKey", "restoreBehavior",
        "smallBusinessProgram", "sandboxAccess", "webhooks", "removedWebhooks", "offerings",
    ]

    package static func load(_ app: ConfigReader, directory: URL) throws(ConfigError) -> AppConfig {
        try app.rejectUnknownKeys(keys)
        try app.rejectNull(["webhook", "webhooks"])
        let id = try app.requiredString("id")
        guard id.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw app.fail("id", "\"\(id)\" may hold only letters, digits, '-', '_' and '.' (it is part of a URL)")
        }
        // "." and ".." are path steps: clients and proxies normalise them out of the URL.
        guard id != ".", id != ".." else { throw app.fail("id", "\"\(id)\" is a path step, not a name (it is part of a URL)") }
        let bundleId = try app.requiredString("bundleId")
        let appAppleId = try app.integer("appAppleId", in: 1...Int64.max)
        let environments = try environmentSet(app)
        if environments.contains(.production), let unsigned = environments.first(where: { !$0.isSignedByAppStore }) {
            // Refused rather than warned about: a warning scrolls by, and the app's public key
            // (inside every copy of the app) would then buy any entitlement with a forged purchase.
            throw app.fail(
                "environments",
                "\(unsigned.rawValue) data carries no App Store signature and may not be enabled with Production: "
                    + "anyone with the public API key could post unsigned purchases and be granted entitlements; "
                    + "test StoreKit in Xcode against a separate app entry without Production")
        }
        if environments.contains(.production), appAppleId == nil {
            throw app.fail("appAppleId", "missing: required when environments include Production")
        }
        let secret = try app.string("secretApiKey")
        let publishable = try app.string("publicApiKey")
        if let secret, secret == publishable {
            throw app.fail("publicApiKey", "must differ from secretApiKey")
        }
        let restore = try app.string("restoreBehavior") ?? RestoreBehavior.transfer.rawValue
        guard let restoreBehavior = RestoreBehavior(rawValue: restore) else {
            throw app.fail(
                "restoreBehavior",
                "\"\(restore)\" is not one of \(RestoreBehavior.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        var config = AppConfig(
            id: id, bundleId: bundleId, appAppleId: appAppleId, environments: environments,
            rootCertificates: try roots(app, directory: directory),
            trackNewPurchasesFromServerNotifications: try app.bool("trackNewPurchasesFromServerNotifications") ?? false,
            secretApiKey: secret, publicApiKey: publishable,
            entitlements: try entitlements(app),
            webhooks: try webhooks(app, directory: directory),
            inAppPurchaseKey: try inAppPurchaseKey(app, directory: directory), restoreBehavior: restoreBehavior)
        config.smallBusinessProgram = try app.bool("smallBusinessProgram") ?? false
        config.sandboxAccess = try sandboxAccess(app)
        config.removedWebhooks = try webhookNames(app, "removedWebhooks")
        config.offerings = try offerings(app)
        config.productDisplayNames = try productDisplayNames(app)
        try checkRetiredNames(app, webhooks: config.webhooks, removed: config.removedWebhooks)
        return config
    }

    /// `"everyone"` (the default), `"nobody"`, or `{"appUserIds": [...]}`.
    private static func sandboxAccess(_ app: ConfigReader) throws(ConfigError) -> SandboxAccess {
        if let object = try? app.object("sandboxAccess") {
            try object.rejectUnknownKeys(["appUserIds"])
            guard let ids = try object.strings("appUserIds") else {
                throw app.fail("sandboxAccess", #"must be "everyone", "nobody" or {"appUserIds": [...]}"#)
            }
            return .only(Set(ids))
        }
        switch try app.string("sandboxAccess") {
        case nil, "everyone"?: return .everyone
        case "nobody"?: return .nobody
        case let other?:
            throw app.fail("sandboxAccess", #""\#(other)" is not "everyone", "nobody" or {"appUserIds": [...]}"#)
        }
    }

    private static func environmentSet(_ app: ConfigReader) throws(ConfigError) -> Set<AppStoreEnvironment> {
        let names = try app.strings("environments") ?? ["Production", "Sandbox"]
        guard !names.isEmpty else { throw app.fail("environments", "must name at least one environment") }
        var result: Set<AppStoreEnvironment> = []
        for (index, name) in names.enumerated() {
            let environment = AppStoreEnvironment(rawValue: name)
            guard environment.isKnown else {
                throw app.fail("environments[\(index)]", "\"\(name)\" is not Production, Sandbox, Xcode or LocalTesting")
            }
            guard result.insert(environment).inserted else {
                throw app.fail("environments[\(index)]", "\"\(name)\" is given twice; name each environment once")
            }
        }
        return result
    }

    private static func roots(_ app: ConfigReader, directory: URL) throws(ConfigError) -> [Certificate] {
        var roots: [Certificate]
        do { roots = [try AppleRootCertificates.appleRootCAG3()] } catch {
            throw app.fail("rootCertificates", "the bundled Apple Root CA - G3 cannot be read: \(error)")
        }
        for (index, path) in (try app.strings("rootCertificates") ?? []).enumerated() {
            let resolved = ConfigLoader.resolve(path, in: directory)
            let data = try app.trustedContents(ofFile: resolved, for: "rootCertificates[\(index)]")
            // OpenSSL's reason (a d2i_X509 error code) would not help: the file is not a certificate.
            guard let parsed = try? Certificate.parse(pemOrDER: data), !parsed.isEmpty else {
                throw app.fail("rootCertificates[\(index)]", "\(resolved) is not a PEM or DER certificate")
            }
            // An intermediate or a leaf would load, and then every notification would fail to verify.
            if let other = parsed.first(where: { !$0.isSelfSignedCA }) {
                throw app.fail(
                    "rootCertificates[\(index)]",
                    "\(resolved) holds \(other.subject), which is not a root CA certificate (self-signed, CA:TRUE): "
                        + "give the root of the chain")
            }
            roots += parsed
        }
        return roots
    }

    private static func entitlements(_ app: ConfigReader) throws(ConfigError) -> [String: [String]] {
        guard let map = try app.object("entitlements") else { return [:] }
        var result: [String: [String]] = [:]
        for name in map.rawMembers.keys.sorted() {
            guard !name.isEmpty else { throw map.fail(name, "an entitlement needs a name") }
            guard let products = try map.strings(name), !products.isEmpty else {
                throw map.fail(name, "must list at least one product ID")
            }
            result[name] = products
        }
        return result
    }

    /// `productDisplayNames`: `{"<product ID>": "<name>"}`, each name a non-empty string.
    private static func productDisplayNames(_ app: ConfigReader) throws(ConfigError) -> [String: String] {
        guard let map = try app.object("productDisplayNames") else { return [:] }
        var names: [String: String] = [:]
        for productId in map.rawMembers.keys.sorted() {
            guard !productId.isEmpty else { throw map.fail(productId, "a display name needs a product ID") }
            guard let name = try map.string(productId) else { throw map.fail(productId, "must be the product's name") }
            names[productId] = name
        }
        return names
    }

    /// `webhooks` (a list) or `webhook` (one), not both; ids (`name`) unique.
    private static func webhooks(_ app: ConfigReader, directory: URL) throws(ConfigError) -> [WebhookConfig] {
        if let list = try app.array("webhooks") {
            if try app.object("webhook") != nil { throw app.fail("webhook", "give webhooks or webhook, not both") }
            var hooks: [WebhookConfig] = []
            for (index, value) in list.enumerated() {
                let hook = try ConfigReader(file: app.file, path: "\(app.key("webhooks"))[\(index)]", value: value)
                var config = try webhook(hook, directory: directory)
                // A webhook's deliveries are kept under its name: with several, each needs one
                // that stays when the list changes (position would not). One alone may go unnamed,
                // as the single `webhook` does (its deliveries are kept under "").
                guard let name = try hook.string("name") ?? (list.count == 1 ? "" : nil) else {
                    throw hook.fail("name", "missing: with several webhooks, name each (its deliveries are kept by name)")
                }
                config.id = name
                if hooks.contains(where: { $0.id == config.id }) {
                    throw hook.fail("name", "\"\(config.id)\" names two webhooks")
                }
                hooks.append(config)
            }
            return hooks
        }
        guard let single = try app.object("webhook") else { return [] }
        return [try webhook(single, directory: directory)]
    }

    private static func webhook(_ hook: ConfigReader, directory: URL) throws(ConfigError) -> WebhookConfig {
        try hook.rejectUnknownKeys([
            "url", "authorization", "signingSecret", "timeoutSeconds", "retryDelaysSeconds", "concurrency", "caFile",
            "name", "environments", "eventTypes", "orderHoldSeconds", "previousNames",
        ])
        let text = try hook.requiredString("url")
        let quoted = URLText.withoutPassword(text)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else { throw hook.fail("url", "\"\(quoted)\" is not an http or https URL") }
        if let port = url.port, !(1...65535).contains(port) {
            throw hook.fail("url", "\"\(quoted)\": the port must be 1-65535")
        }
        if url.user != nil || url.password != nil {
            throw hook.fail("url", "\"\(quoted)\": credentials do not go in the URL; give them as authorization")
        }
        let caFile = try webhookCAFile(hook, isHTTPS: scheme == "https", directory: directory)
        var delays = WebhookConfig.defaultRetryDelaysSeconds
        if let values = try hook.array("retryDelaysSeconds") {
            delays = []
            for (index, value) in values.enumerated() {
                // 30 days at most: a retry that waits longer is not a retry, and the moment it
                // is due must fit in milliseconds.
                guard case .integer(let seconds) = value, (0...WebhookConfig.maximumRetryDelaySeconds).contains(seconds) else {
                    throw hook.fail(
                        "retryDelaysSeconds[\(index)]",
                        "must be a whole number of seconds from 0 to \(WebhookConfig.maximumRetryDelaySeconds) (30 days)")
                }
                delays.append(Int(seconds))
            }
        }
        // Sent as a header's value: a line break (a secret pasted with its newline) would end the
        // header there and start another, or a second request.
        let authorization = try hook.string("authorization")
        if let authorization, authorization.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw hook.fail("authorization", "holds a control character (a line break?): a header value cannot")
        }
        var config = WebhookConfig(
            url: url, authorization: authorization, signingSecret: try hook.string("signingSecret"),
            timeoutSeconds: Int(try hook.integer("timeoutSeconds", in: 1...600) ?? 30), retryDelaysSeconds: delays,
            concurrency: Int(try hook.integer("concurrency", in: 1...256) ?? 8), caFile: caFile)
        config.orderHoldSeconds = Int(try hook.integer("orderHoldSeconds", in: 0...2_592_000) ?? 300)
        config.previousNames = try webhookNames(hook, "previousNames")
        if let names = try hook.strings("environments") {
            var environments: Set<EventEnvironment> = []
            for (index, name) in names.enumerated() {
                guard let environment = EventEnvironment(rawValue: name) else {
                    throw hook.fail("environments[\(index)]", "\"\(name)\" is not PRODUCTION or SANDBOX")
                }
                environments.insert(environment)
            }
            guard !environments.isEmpty else { throw hook.fail("environments", "must name PRODUCTION, SANDBOX or both") }
            config.environments = environments
        }
        if let types = try hook.strings("eventTypes") {
            for (index, type) in types.enumerated() where EventType(rawValue: type) == nil {
                throw hook.fail(
                    "eventTypes[\(index)]",
                    "\"\(type)\" is not an event type (\(EventType.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard !types.isEmpty else { throw hook.fail("eventTypes", "must name at least one event type") }
            config.eventTypes = Set(types)
        }
        return config
    }

    /// The resolved path of `caFile`, checked to hold PEM certificates: a file that cannot be
    /// used is refused at start-up, not found out at the first delivery.
    private static func webhookCAFile(_ hook: ConfigReader, isHTTPS: Bool, directory: URL) throws(ConfigError) -> String? {
        guard let path = try hook.string("caFile") else { return nil }
        guard isHTTPS else { throw hook.fail("caFile", "applies to https URLs only") }
        let resolved = ConfigLoader.resolve(path, in: directory)
        let data = try hook.trustedContents(ofFile: resolved, for: "caFile")
        guard String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----"),
            let certificates = try? Certificate.parse(pemOrDER: data), !certificates.isEmpty
        else { throw hook.fail("caFile", "\(resolved) holds no PEM certificate") }
        return resolved
    }

    private static func inAppPurchaseKey(_ app: ConfigReader, directory: URL) throws(ConfigError) -> InAppPurchaseKeyConfig? {
        guard let key = try app.object("inAppPurchaseKey") else { return nil }
        try key.rejectUnknownKeys(["keyId", "issuerId", "privateKeyPath"])
        let path = ConfigLoader.resolve(try key.requiredString("privateKeyPath"), in: directory)
        guard let pem = String(data: try key.contents(ofFile: path, for: "privateKeyPath"), encoding: .utf8) else {
            throw key.fail("privateKeyPath", "\(path) is not a PKCS#8 EC private key (not text)")
        }
        let privateKey: ECPrivateKey
        do { privateKey = try ECPrivateKey(pem: pem) } catch {
            throw key.fail("privateKeyPath", "\(path) is not a PKCS#8 EC private key: \(error)")
        }
        guard privateKey.curve == .p256 else { throw key.fail("privateKeyPath", "\(path) is not a P-256 key") }
        return InAppPurchaseKeyConfig(
            keyId: try key.requiredString("keyId"), issuerId: try key.requiredString("issuerId"), privateKeyPath: path,
            privateKey: privateKey)
    }
}
