/// What a notificationType means for a customer's access: the groups of the reference's index.
enum AccessGroup: String, CaseIterable, Sendable {
    case startsAccess
    case keepsAccess
    case changesPlan
    case endsAccess
    case moneyBack
    case informational

    var title: String {
        switch self {
        case .startsAccess: "Starts access"
        case .keepsAccess: "Keeps access"
        case .changesPlan: "Changes the plan"
        case .endsAccess: "Ends access"
        case .moneyBack: "Money back"
        case .informational: "Informational"
        }
    }

    var blurb: String {
        switch self {
        case .startsAccess: "A purchase: grant what was bought."
        case .keepsAccess: "Access goes on; dates, renewal or price change."
        case .changesPlan: "The customer (or you, through Advanced Commerce) moved to another product or offer."
        case .endsAccess: "Access ends now or soon, or Apple is trying to collect."
        case .moneyBack: "Refunds: requested, granted, declined or reversed."
        case .informational: "Nothing to grant or revoke: tests, external purchase tokens, consent."
        }
    }
}

/// The facts of a notificationType beside its cases: Apple's statement, its access group,
/// cross-references and the details a page must carry.
struct CatalogFacts: Sendable {
    /// What Apple's documentation says of the type, in one sentence of our own that covers every subtype.
    var appleSays: String
    var access: AccessGroup
    /// Where the customer's story goes next, with the notification it arrives as.
    var seeAlso: [String] = []
    /// What the page must also say (product rules, fields, settings), one paragraph each.
    var notes: [String] = []
    /// The file the type's entry is written in, for "Edit this page".
    var definedIn: String
}
