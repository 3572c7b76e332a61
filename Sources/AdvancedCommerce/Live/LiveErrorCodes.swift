/// The errors only a check against the live subscription can find (reference §4).
extension AdvancedCommerceErrorCode {
    public static let transactionIdNotFound = Self("TransactionIdNotFoundError", 4_040_010, "Transaction id not found.")
    public static let inactiveACASub = Self("InactiveACASubError", 4_030_015, "The subscription is not active.")
    public static let productNotOwned = Self("ProductNotOwnedError", 4_030_013, "The customer doesn't own the product.")
    public static let changeItemNotFound = Self(
        "ChangeItemNotFoundError", 4_000_146, "The targeted item in changeItems wasn't found.")
    public static let removeItemNotFound = Self(
        "RemoveItemNotFoundError", 4_000_145, "A product in removeItems wasn't found for the given subscription.")
    public static let productAlreadyExists = Self("ProductAlreadyExistsError", 4_000_114, "Provided SKU is already owned.")
    public static let removeAllItemsNotAllowed = Self(
        "RemoveAllItemsNotAllowedError", 4_000_168,
        "The active subscription must contain at least one item and cannot be completely empty.")
    public static let subscriptionAlreadyActive = Self(
        "SubscriptionAlreadyActiveError", 4_030_011,
        "The subscription is already active, and cannot be reactivated or renewed at this time.")
    public static let invalidSKUMustBeCurrentSKUSetToRenew = Self(
        "InvalidSKUProvidedMustBeCurrentSKUSetToRenewError", 4_000_220,
        "The SKU provided must be a current SKU set to renew.")
    public static let offerPreventsItemMidCycleChange = Self(
        "OfferPreventsItemMidCycleChangeError", 4_000_177, "An existing offer prevents changes to the item mid-cycle.")
    public static let priceChangeNotSupportedThroughModifyItems = Self(
        "PriceChangeNotSupportedThroughModifyItemsError", 4_000_178,
        "Changing the price isn't supported as part of a modify items request.")
    public static let mismatchedStorefront = Self("MismatchedStorefrontError", 4_000_133, "The storefronts mismatch.")
    public static let repeatedRequestReferenceId = Self(
        "RepeatedRequestReferenceIdError", 4_000_097, "The requestReferenceId was repeated.")
}
