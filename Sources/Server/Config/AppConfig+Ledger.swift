import Storage
import Subscriptions

extension AppConfig {
    /// What the store needs of this app to apply inputs: the reducer's configuration (with the
    /// exchange rates as they are now), its webhooks' routes, and the unpriced-events metric.
    package var ledger: LedgerApp {
        var configuration = LedgerConfiguration(
            appId: id, entitlements: entitlements,
            trackNewPurchasesFromServerNotifications: trackNewPurchasesFromServerNotifications,
            restoreBehavior: restoreBehavior)
        configuration.smallBusinessProgram = smallBusinessProgram
        configuration.sandboxAccess = sandboxAccess
        configuration.usdExchangeRates = exchangeRates?.current() ?? [:]
        var countUnpriced: (@Sendable (Int) -> Void)? = nil
        if let counter = unpricedEvents { countUnpriced = { counter.increment(by: $0) } }
        return LedgerApp(
            id: id, configuration: configuration, webhooks: webhooks.map(\.route), countUnpricedEvents: countUnpriced)
    }
}

extension WebhookConfig {
    /// The webhook as the outbox sees it.
    package var route: WebhookRoute { WebhookRoute(id: id, environments: environments, eventTypes: eventTypes) }
}

extension LedgerHandOff {
    /// The hand-off for the apps `config` has.
    package init(config: RevenueDotConfig, cache: LedgerCache? = nil) {
        let apps = Dictionary(uniqueKeysWithValues: config.apps.map { ($0.id, $0) })
        self.init(app: { apps[$0]?.ledger }, cache: cache)
    }
}
