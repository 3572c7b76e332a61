import Subscriptions

/// What the store needs to know of an app to apply inputs to its state: the reducer's
/// configuration, and the webhooks that receive the events it makes.
public struct LedgerApp: Sendable {
    /// The app's id (`purchases.app_id` and every other table's).
    public var id: String
    /// The reducer's configuration, its `appId` the same as `id`.
    public var configuration: LedgerConfiguration
    /// Where new events get a pending delivery; empty for none.
    public var webhooks: [WebhookRoute]
    /// Told how many events an input made with a price in their currency but none in US dollars
    /// (no exchange rate for it), when it made any; replay does not tell.
    public var countUnpricedEvents: (@Sendable (Int) -> Void)?

    /// An app; `configuration.appId` is set to `id`.
    public init(
        id: String, configuration: LedgerConfiguration = LedgerConfiguration(), webhooks: [WebhookRoute] = [],
        countUnpricedEvents: (@Sendable (Int) -> Void)? = nil
    ) {
        self.countUnpricedEvents = countUnpricedEvents
        self.id = id
        var configuration = configuration
        configuration.appId = id
        self.configuration = configuration
        self.webhooks = webhooks
    }
}

/// A webhook as the outbox sees it: its id in `deliveries.webhook`, and which events it takes.
public struct WebhookRoute: Sendable, Hashable {
    /// Its id in `deliveries.webhook` (`""` for an app's one unnamed webhook).
    public var id: String
    /// The environments whose events it takes; nil for both.
    public var environments: Set<EventEnvironment>?
    /// The event types it takes; nil for all.
    public var eventTypes: Set<String>?

    /// A route; by default it takes every event.
    public init(id: String, environments: Set<EventEnvironment>? = nil, eventTypes: Set<String>? = nil) {
        self.id = id
        self.environments = environments
        self.eventTypes = eventTypes
    }

    /// Whether the webhook takes `event`.
    public func accepts(_ event: Event) -> Bool {
        if let environments, let environment = event.environment, !environments.contains(environment) { return false }
        if let eventTypes, !eventTypes.contains(event.type.rawValue) { return false }
        return true
    }
}
