/// What a shell must load to apply one input to a slice of the ledger instead of all of it.
///
/// `apply` only reads and writes the entries named here, so a shell can build a `Ledger` from
/// those rows, apply the input, and write back the rows it loaded (and any customer created).
/// Storage already refuses a repeated `notificationUUID`; the ledger's own duplicate checks make
/// a second application harmless anyway.
extension Ledger.Input {
    /// The purchase the input is about (load it with its journal); nil for a notification about
    /// none (TEST, RENEWAL_EXTENSION SUMMARY, EXTERNAL_PURCHASE_TOKEN, RESCIND_CONSENT).
    public var purchaseKey: PurchaseKey? {
        switch self {
        case .notificationReceived(let facts):
            Ledger.purchaseKey(of: facts.transaction, renewalInfo: facts.renewalInfo, type: facts.notificationType)
        case .transactionPosted(let transaction, _, _):
            Ledger.purchaseKey(of: transaction, renewalInfo: nil, type: nil)
        case .appleAnswered(let transaction, let renewalInfo, _):
            Ledger.purchaseKey(of: transaction, renewalInfo: renewalInfo, type: nil)
        case .appleHistory(let transaction, _):
            Ledger.purchaseKey(of: transaction, renewalInfo: nil, type: nil)
        case .linked(let key, _):
            key
        case .timerFired(let timer):
            PromotionalGrant.parse(timer: timer) == nil ? .subscription(originalTransactionId: timer.originalTransactionId) : nil
        case .customerAction:
            nil
        }
    }

    /// The customers the app or its backend acts as in this input (by id or alias), which the
    /// slice loads (`namedCustomerIds`): a post, a link, an import's or a customer action's.
    var actingCustomerIds: [String] {
        switch self {
        case .transactionPosted(_, let appUserId, _), .linked(_, let appUserId): [appUserId]
        case .appleAnswered(_, _, let appUserId), .appleHistory(_, let appUserId): [appUserId].compactMap { $0 }
        case .customerAction(let action): action.customerIds
        case .notificationReceived, .timerFired: []
        }
    }

    /// Customers to load besides the purchase's current owner (each id through the alias it may
    /// be): the one the input names, the one its `appAccountToken` names (if any exists, also in
    /// lower case), and the owner of the subscription an Advanced
    /// Commerce migration replaced (`previousOriginalTransactionId`, whose row to load as well).
    public var namedCustomerIds: [String] {
        switch self {
        case .notificationReceived(let facts):
            Ledger.tokenCustomerIds(facts.transaction?.appAccountToken ?? facts.renewalInfo?.appAccountToken)
        case .transactionPosted(_, let appUserId, _), .linked(_, let appUserId):
            [appUserId]
        case .appleAnswered(let transaction, let renewalInfo, let appUserId):
            [appUserId].compactMap { $0 } + Ledger.tokenCustomerIds(transaction.appAccountToken ?? renewalInfo?.appAccountToken)
        case .appleHistory(let transaction, let appUserId):
            [appUserId].compactMap { $0 } + Ledger.tokenCustomerIds(transaction.appAccountToken)
        case .customerAction(let action):
            action.customerIds
        case .timerFired(let timer):
            PromotionalGrant.parse(timer: timer).map { [$0.customer] } ?? []
        }
    }

    /// The customers whose every purchase the input may move (load them all): the ids a
    /// customer action names, and for an input that links a purchase to a customer, that purchase's
    /// owner when anonymous (merged, with all it owns, into the customer).
    public var movesEveryPurchaseOfCustomers: [String] {
        switch self {
        case .customerAction(.aliased(let id, let other)), .customerAction(.loggedIn(let id, let other)): [id, other]
        case .customerAction(.deleted(let id)): [id]
        default: []
        }
    }

    /// Whether the input links its purchase to a named customer (a post, a link, an import
    /// with an app_user_id): an anonymous owner's purchases then all move.
    public var linksToNamedCustomer: Bool { linkedAppUserId != nil }

    /// The customer the input links its purchase to, when it names one.
    public var linkedAppUserId: String? {
        switch self {
        case .transactionPosted(_, let appUserId, _), .linked(_, let appUserId): appUserId
        case .appleAnswered(_, _, let appUserId), .appleHistory(_, let appUserId): appUserId
        case .notificationReceived, .timerFired, .customerAction: nil
        }
    }

    /// The subscription an Advanced Commerce migration replaced, whose owner the new one keeps.
    public var replacedOriginalTransactionId: String? {
        guard case .notificationReceived(let facts) = self else { return nil }
        return facts.transaction?.previousOriginalTransactionId
    }
}

extension Ledger {
    /// Whether applying `input` to this slice may give an owner to a purchase that has none.
    /// This is the reducer's rule, not a guess of the shell's: `apply` claims an unowned purchase
    /// only when it holds, and every input that links is one. It reads only the configuration
    /// and the customers `input` names (`Input.namedCustomerIds`, and the aliases found for
    /// them), so a shell asks it once those are loaded, before the purchase: when it holds, the
    /// shell loads the held events such a purchase keeps apart, so that the claim releases all of
    /// them, in one run of the reducer.
    ///
    /// False for a timer, and, with tracking off, for a notification that neither replaces a
    /// subscription nor carries an `appAccountToken` naming an existing customer: what most
    /// unclaimed purchases receive (their token names a customer the app has not made yet, or
    /// none), so they never read their held events back.
    public func mayClaimAPurchase(by input: Input) -> Bool {
        if configuration.trackNewPurchasesFromServerNotifications { return true }
        switch input {
        case .timerFired:
            return false
        case .notificationReceived:
            return input.replacedOriginalTransactionId != nil
                || input.namedCustomerIds.contains { customers[customerId($0)] != nil }
        case .transactionPosted, .linked, .appleAnswered, .appleHistory, .customerAction:
            return true
        }
    }
}

extension Ledger {
    /// Whether the slice for `input` must hold every subscription of `owner`, the owner of the
    /// input's one-time purchase: under `transferIfNoActive`, an active one of theirs keeps the
    /// purchase with them (`link`), so they are read only when the purchase would move to
    /// another identified customer (not for an owner's own post, nor for a slice read only to
    /// learn the owner, which names nobody).
    public func needsSubscriptions(of owner: String, toLink input: Input) -> Bool {
        guard configuration.restoreBehavior == .transferIfNoActive, case .oneTime? = input.purchaseKey,
            let target = input.linkedAppUserId, !target.isEmpty, !Self.isAnonymous(owner)
        else { return false }
        return customerId(target) != owner
    }
}
