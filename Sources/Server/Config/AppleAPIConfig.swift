import AppStore
import AppStoreServerAPI
import Crypto
import Foundation

/// `appleApi`: how RevenueDot calls the App Store Server API for apps with an
/// `inAppPurchaseKey`.
package struct AppleAPIConfig: Sendable {
    /// Where each environment is served; Apple's hosts unless configured (tests and rehearsals
    /// point them at `revenuedot simulate apple-api`, `http://` allowed).
    package var baseURLs: [AppStoreEnvironment: APIBaseURL]
    /// How often `serve` backfills missed notifications; 0 turns automatic backfill off.
    package var backfillIntervalMinutes: Int
    /// How often `serve` reconciles every active or recently lapsed subscription with Apple; 0
    /// (the default) turns it off: one request per subscription, against Apple's rate limit.
    package var reconcileIntervalMinutes = 0
    /// How far before the newest stored notification an automatic backfill starts looking, for
    /// notifications Apple sent while an earlier one was still being retried.
    package var backfillMarginMinutes: Int
    /// At most this many calls a second per app, environment and endpoint, under Apple's limit
    /// for the endpoint; nil keeps Apple's limits, 0 turns limiting off (a local simulator).
    package var requestsPerSecond: Double?
    /// One attempt's limit.
    package var timeoutSeconds: Int
    /// A PEM file of the CAs trusted for an https base URL in place of the system's store.
    package var caFile: String?
    /// How Apple's consumption requests are answered.
    package var consumption = ConsumptionConfig()

    package static let defaultBaseURLs: [AppStoreEnvironment: APIBaseURL] = [
        .production: .production, .sandbox: .sandbox,
    ]

    package init(
        baseURLs: [AppStoreEnvironment: APIBaseURL] = AppleAPIConfig.defaultBaseURLs, backfillIntervalMinutes: Int = 60,
        backfillMarginMinutes: Int = 60, requestsPerSecond: Double? = nil, timeoutSeconds: Int = 30, caFile: String? = nil
    ) {
        self.baseURLs = baseURLs
        self.backfillIntervalMinutes = backfillIntervalMinutes
        self.backfillMarginMinutes = backfillMarginMinutes
        self.requestsPerSecond = requestsPerSecond
        self.timeoutSeconds = timeoutSeconds
        self.caFile = caFile
    }
}

/// `appleApi.consumption`: whether and what RevenueDot answers when Apple asks for consumption
/// information about a refund request (CONSUMPTION_REQUEST), for apps with an `inAppPurchaseKey`.
package struct ConsumptionConfig: Sendable, Equatable {
    package var enabled = false
    /// Whether your customers agreed to share consumption data with Apple (your terms, your
    /// consent flow). Apple takes no answer without it, so none is sent without it.
    package var customerConsented = false
    /// Whether the app offered a free sample or trial before purchase.
    package var sampleContentProvided = false
    /// Whether what was bought was delivered and works.
    package var deliveryStatus: DeliveryStatus = .delivered
    /// The outcome you prefer; none by default.
    package var refundPreference: RefundPreference? = nil
    /// The share used of a one-time purchase (thousandths of a percent), which RevenueDot cannot
    /// know; none by default. None is sent for an auto-renewable subscription: Apple computes it.
    package var oneTimeConsumptionPercentage: Int32? = nil

    package init() {}
}

package enum AppleAPIConfigLoader {
    package static func load(_ reader: ConfigReader?, directory: URL) throws(ConfigError) -> AppleAPIConfig {
        guard let reader else { return AppleAPIConfig() }
        try reader.rejectUnknownKeys([
            "baseURLs", "backfillIntervalMinutes", "backfillMarginMinutes", "requestsPerSecond", "timeoutSeconds", "caFile",
            "consumption", "reconcileIntervalMinutes",
        ])
        var config = AppleAPIConfig()
        if let urls = try reader.object("baseURLs") {
            try urls.rejectUnknownKeys(["Production", "Sandbox"])
            for environment in [AppStoreEnvironment.production, .sandbox] {
                guard let text = try urls.string(environment.rawValue) else { continue }
                guard let url = APIBaseURL(text) else {
                    throw urls.fail(
                        environment.rawValue, "\"\(URLText.withoutPassword(text))\" is not an http or https URL with a host")
                }
                config.baseURLs[environment] = url
            }
        }
        config.backfillIntervalMinutes = Int(try reader.integer("backfillIntervalMinutes", in: 0...10_080) ?? 60)
        config.backfillMarginMinutes = Int(try reader.integer("backfillMarginMinutes", in: 0...10_080) ?? 60)
        config.requestsPerSecond = try reader.integer("requestsPerSecond", in: 0...1000).map(Double.init)
        config.reconcileIntervalMinutes = Int(try reader.integer("reconcileIntervalMinutes", in: 0...100_000) ?? 0)
        config.timeoutSeconds = Int(try reader.integer("timeoutSeconds", in: 1...600) ?? 30)
        if let path = try reader.string("caFile") {
            let resolved = ConfigLoader.resolve(path, in: directory)
            let data = try reader.trustedContents(ofFile: resolved, for: "caFile")
            guard (try? Certificate.parse(pemOrDER: data))?.isEmpty == false else {
                throw reader.fail("caFile", "\(resolved) holds no PEM certificate")
            }
            config.caFile = resolved
        }
        if let consumption = try reader.object("consumption") {
            try consumption.rejectUnknownKeys([
                "enabled", "customerConsented", "sampleContentProvided", "deliveryStatus", "refundPreference",
                "oneTimeConsumptionPercentage",
            ])
            config.consumption.enabled = try consumption.bool("enabled") ?? false
            config.consumption.customerConsented = try consumption.bool("customerConsented") ?? false
            config.consumption.sampleContentProvided = try consumption.bool("sampleContentProvided") ?? false
            if let text = try consumption.string("deliveryStatus") {
                let status = DeliveryStatus.resolve(text)
                guard status.isKnown else {
                    throw consumption.fail(
                        "deliveryStatus", "must be one of \(DeliveryStatus.knownValues.map(\.rawValue).joined(separator: ", "))")
                }
                config.consumption.deliveryStatus = status
            }
            if let text = try consumption.string("refundPreference") {
                let preference = RefundPreference.resolve(text)
                guard preference.isKnown else {
                    throw consumption.fail(
                        "refundPreference",
                        "must be one of \(RefundPreference.knownValues.map(\.rawValue).joined(separator: ", "))")
                }
                config.consumption.refundPreference = preference
            }
            config.consumption.oneTimeConsumptionPercentage = try consumption.integer(
                "oneTimeConsumptionPercentage", in: 0...100_000
            ).map { Int32($0) }
            if let share = config.consumption.oneTimeConsumptionPercentage,
                !ConsumptionRequest.allows(share: share, with: config.consumption.refundPreference)
            {
                throw consumption.fail(
                    "oneTimeConsumptionPercentage",
                    "must be between 1 and 99999 with refundPreference GRANT_PRORATED (Apple refuses none or all of a purchase prorated)"
                )
            }
        }
        return config
    }
}
