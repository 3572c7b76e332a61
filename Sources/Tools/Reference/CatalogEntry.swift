import Server

/// One notificationType in the reference catalog (`revenuedot explain`, `revenuedot docs`), in
/// our own words. What RevenueDot does with it is not written here: it is produced by running
/// each case's example through the real verifier and reducer (`CatalogOutcome`).
package struct CatalogEntry: Sendable {
    /// Apple's `notificationType`, e.g. `SUBSCRIBED`.
    package var type: String
    /// One line for the list of all types.
    package var summary: String
    /// What the notification means, as a paragraph.
    package var meaning: String
    /// The subtypes Apple sends with it; a case with `name` nil is the notification without a subtype.
    package var cases: [CatalogCase]

    package init(type: String, summary: String, meaning: String, cases: [CatalogCase]) {
        self.type = type
        self.summary = summary
        self.meaning = meaning
        self.cases = cases
    }
}

/// One subtype of a notificationType (or its absence).
package struct CatalogCase: Sendable {
    /// Apple's `subtype`, or nil for the notification without one.
    package var name: String?
    /// What this subtype means.
    package var meaning: String
    /// What makes Apple send it (customer actions, App Store events, API calls).
    package var triggers: [String]
    /// What a receiving server should do, in order: verify first, the entitlement change, the
    /// message that fits (win-back, billing, plan change), answer 200 after storing, stay safe to run twice.
    package var whatToDo: [String]
    /// How the example for this case is built (see `CatalogExample`).
    package var example: CatalogExample

    package init(name: String?, meaning: String, triggers: [String], whatToDo: [String], example: CatalogExample) {
        self.name = name
        self.meaning = meaning
        self.triggers = triggers
        self.whatToDo = whatToDo
        self.example = example
    }
}

/// The situation an example notification arrives in, and what it carries. The docs run it
/// through the real verifier and reducer to state RevenueDot's outcome.
package struct CatalogExample: Sendable {
    /// What the subscription looked like before this notification.
    package enum Before: String, Sendable {
        /// Nothing known yet (a first purchase).
        case nothing
        /// Active, auto-renew on, on `pro.monthly`.
        case active
        /// Active with auto-renew off.
        case autoRenewOff
        /// In a billing retry with a grace period running.
        case inGrace
        /// In a billing retry without a grace period (access ended when the renewal failed).
        case inBillingRetry
        /// Expired (access over).
        case expired
        /// Active and shared through Family Sharing (`inAppOwnershipType` FAMILY_SHARED).
        case familyShared
        /// Refunded (the current transaction has a `revocationDate`).
        case refunded
    }

    package var before: Before
    /// The product of the notification's transaction (default `pro.monthly`; `pro.yearly` for an upgrade).
    package var productId: String
    /// Renewal info's `autoRenewProductId` (`pro.basic` for a downgrade), when it differs from `productId`.
    package var autoRenewProductId: String?
    /// Renewal info's `autoRenewStatus`.
    package var autoRenewOn: Bool
    /// Whether the transaction starts a new period (a renewal, an upgrade, a resubscription).
    package var newPeriod: Bool
    /// Whether the transaction is refunded or revoked (`revocationDate` set).
    package var revoked: Bool
    /// The product type: an auto-renewable subscription, or a one-time purchase (`Consumable`,
    /// `Non-Consumable`, `Non-Renewing Subscription`).
    package var productType: String
    /// Whether the notification carries no transaction at all (TEST, summaries, external tokens, consent).
    package var noTransaction: Bool

    package init(
        before: Before, productId: String = "pro.monthly", autoRenewProductId: String? = nil, autoRenewOn: Bool = true,
        newPeriod: Bool = false, revoked: Bool = false, productType: String = "Auto-Renewable Subscription",
        noTransaction: Bool = false
    ) {
        self.before = before
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewOn = autoRenewOn
        self.newPeriod = newPeriod
        self.revoked = revoked
        self.productType = productType
        self.noTransaction = noTransaction
    }
}
