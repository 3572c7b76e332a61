import AppStore
import Subscriptions

/// What a configuration allows but its operator should hear about: settings `serve` runs with
/// that no production deployment wants. `check-config` prints them; `serve` logs them when it
/// starts (`start.warning`).
package enum ConfigWarnings {
    /// A secret API key shorter than this is one a caller may guess (`init` makes 35 characters).
    static let shortestSecretKey = 20
    /// A body limit below this may refuse one of Apple's notifications (about 14 KB now).
    static let smallestNotificationBodyLimit = 64 << 10

    package static func of(_ config: RevenueDotConfig) -> [String] {
        var warnings: [String] = []
        // Apple's root is always there; one the configuration lists again is not extra.
        let appleRoot = try? AppleRootCertificates.appleRootCAG3()
        for app in config.apps {
            let extraRoots = app.rootCertificates.filter { $0 != appleRoot }.count
            if app.environments.contains(.production), extraRoots > 0 {
                warnings.append(
                    "app \"\(app.id)\" takes Production notifications signed under \(extraRoots) root "
                        + "certificate(s) besides Apple's: whoever holds their keys can sign what it takes as Apple's "
                        + "(right for a demo or a test chain, never in production)")
            }
            // Events are of the environments the app accepts (Xcode and local testing count as SANDBOX).
            let eventEnvironments = Set(app.environments.map(EventEnvironment.init))
            for webhook in app.webhooks {
                guard let taken = webhook.environments, taken.isDisjoint(with: eventEnvironments) else { continue }
                let name = webhook.id.isEmpty ? "webhook" : "webhook \"\(webhook.id)\""
                warnings.append(
                    "app \"\(app.id)\": \(name) takes \(taken.map(\.rawValue).sorted().joined(separator: ", ")) events "
                        + "only, and the app accepts \(app.environments.map(\.rawValue).sorted().joined(separator: ", ")) "
                        + "notifications only: it is sent none of their events")
            }
            if let key = app.secretApiKey, key.count < shortestSecretKey || key.contains("...") {
                warnings.append(
                    "app \"\(app.id)\": secretApiKey is \(key.contains("...") ? "a placeholder" : "\(key.count) characters"): "
                        + "whoever guesses it reads and changes every customer; use a long random one (init makes "
                        + "sk_ and 32 random hex digits)")
            }
        }
        // Two apps that accept the same notifications: a held one stays held, either could take it.
        let apps = config.apps.sorted { $0.id < $1.id }
        for (index, first) in apps.enumerated() {
            for second in apps[(index + 1)...] where first.bundleId == second.bundleId {
                let shared = first.environments.intersection(second.environments).map(\.rawValue).sorted()
                guard !shared.isEmpty else { continue }
                warnings.append(
                    "apps \"\(first.id)\" and \"\(second.id)\" both accept \(first.bundleId) in "
                        + "\(shared.joined(separator: ", ")): one held under another app's URL is not taken up at "
                        + "a start, as either could take it (only a copy posted to one of them takes it up)")
            }
        }
        if config.http.maxBodyBytes < smallestNotificationBodyLimit {
            warnings.append(
                "http.maxBodyBytes is \(config.http.maxBodyBytes): App Store notifications are about 14 KB and grow "
                    + "with what Apple adds, and one over the limit is answered 413 until Apple gives up on it (keep "
                    + "at least \(smallestNotificationBodyLimit); the default is \(1 << 20))")
        }
        let apple = config.appleAPI
        if apple.backfillMarginMinutes == 0 {
            warnings.append(
                "appleApi.backfillMarginMinutes is 0: a notification Apple lists in its history after the backfill "
                    + "passed its time is never read (60 reads an hour again)")
        }
        if apple.consumption.enabled, !apple.consumption.customerConsented {
            warnings.append(
                "appleApi.consumption is enabled without customerConsented: Apple takes no answer without "
                    + "consent, so none is sent")
        }
        let consumption = apple.consumption
        if consumption.enabled, consumption.refundPreference == .grantProrated,
            consumption.oneTimeConsumptionPercentage == nil || consumption.deliveryStatus != .delivered
        {
            warnings.append(
                "appleApi.consumption.refundPreference is GRANT_PRORATED without a oneTimeConsumptionPercentage "
                    + "for a delivered purchase: Apple refuses it for a one-time purchase, so none is sent for one "
                    + "(subscriptions are answered)")
        }
        return warnings
    }
}
