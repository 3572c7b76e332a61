import Server

extension NotificationCatalog {
    /// Every notificationType of App Store Server Notifications V2, in Apple's documentation order.
    static let entries: [CatalogEntry] = lifecycleEntries + changesEntries + refundsEntries + otherEntries
}
