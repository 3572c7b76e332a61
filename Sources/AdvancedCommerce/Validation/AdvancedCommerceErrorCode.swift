/// One of Apple's Advanced Commerce validation errors: its name, numeric code and message.
///
/// Names, codes and messages are Apple's (https://developer.apple.com/documentation/advancedcommerceapi/errorcodes),
/// so a rejection found here reads exactly like the one Apple's server would send. Only the errors this
/// module's request-only validation can produce are listed.
public struct AdvancedCommerceErrorCode: Hashable, Sendable {
    /// Apple's error name, e.g. `ChangeItemNotFoundError`.
    public let name: String
    /// Apple's 7-digit `errorCode`.
    public let code: Int
    /// Apple's `errorMessage`.
    public let message: String

    init(_ name: String, _ code: Int, _ message: String) {
        self.name = name
        self.code = code
        self.message = message
    }
}

extension AdvancedCommerceErrorCode {
    public static let invalidTransactionId = Self("InvalidTransactionIdError", 4000006, "The transactionId is invalid.")
    public static let invalidStorefront = Self("InvalidStorefrontError", 4000028, "The storefront value is invalid.")
    public static let invalidAppAccountToken = Self(
        "InvalidAppAccountTokenError", 4000033, "The appAccountToken field must contain a valid UUID or an empty string.")
    public static let invalidCurrency = Self("InvalidCurrencyError", 4000053, "The currency value is invalid.")
    public static let oneItemNeededInModify = Self(
        "OneItemNeededInModifyError", 4000063, "At least one type of change must be provided in a modify subscription request.")
    public static let nullRequestInfo = Self("NullRequestInfoError", 4000079, "The required field, requestInfo, is missing.")
    public static let nullRequestReferenceID = Self(
        "NullRequestReferenceIDError", 4000080, "The required field, requestReferenceId, is missing.")
    public static let invalidRequestReferenceID = Self(
        "InvalidRequestReferenceIDError", 4000081, "The requestReferenceId value is invalid.")
    public static let invalidConsistencyToken = Self(
        "InvalidConsistencyTokenError", 4000082, "The consistencyToken value is invalid.")
    public static let nullVersion = Self("NullVersionError", 4000083, "The required field, version, is missing.")
    public static let unexpectedVersion = Self("UnexpectedVersionError", 4000084, "The value of version is invalid.")
    public static let nullTransactionId = Self(
        "NullTransactionIdError", 4000085, "The required field, transactionId, is missing.")
    public static let negativePrice = Self("NegativePriceError", 4000086, "The price field must contain a positive number.")
    public static let skuLengthExceeded = Self("SKULengthExceededError", 4000087, "Exceeds the maximum length of the SKU field.")
    public static let descriptionLengthExceeded = Self(
        "DescriptionLengthExceededError", 4000088, "Exceeds the maximum length of the description field.")
    public static let displayNameLengthExceeded = Self(
        "DisplayNameLengthExceededError", 4000089, "Exceeds the maximum length of the displayName field.")
    /// Apple's message text is copied as published (sic).
    public static let negativeProratedPrice = Self(
        "NegativeProratedPriceError", 4000091, "Exceeds the maximum length of the price field.")
    public static let nullOfferPeriod = Self("NullOfferPeriodError", 4000092, "The required field, offer period, is missing.")
    public static let nullPeriodCount = Self("NullPeriodCountError", 4000093, "The required field, periodCount, is missing.")
    public static let periodCountNotPositive = Self(
        "PeriodCountNotPositiveError", 4000094, "Period count must be a positive number.")
    public static let nullReason = Self("NullReasonError", 4000095, "The required field, reason, is missing.")
    public static let invalidPreviousTransactionID = Self(
        "InvalidPreviousTransactionIDError", 4000096, "Previous original transaction id is invalid.")
    public static let nullCurrency = Self("NullCurrencyError", 4000098, "The required field, currency, is missing.")
    public static let nullTaxCode = Self("NullTaxCodeError", 4000099, "The required field, taxCode, is missing.")
    public static let nullItems = Self("NullItemsError", 4000101, "The required field, items, is missing.")
    public static let nullItem = Self("NullItemError", 4000102, "The required field, item, is missing.")
    public static let nullDescriptors = Self("NullDescriptorsError", 4000103, "The required field, descriptors, is missing.")
    public static let nullPeriod = Self("NullPeriodError", 4000104, "The required field, period, is missing.")
    public static let nullSKU = Self("NullSKUError", 4000105, "The required field, SKU, is missing.")
    public static let nullDisplayName = Self("NullDisplayNameError", 4000106, "The required field, displayName, is missing.")
    public static let nullDescription = Self("NullDescriptionError", 4000107, "The required field, description, is missing.")
    public static let nullPrice = Self("NullPriceError", 4000109, "The required field, price, is missing.")
    public static let nullRetainBillingCycle = Self(
        "NullRetainBillingCycleError", 4000110, "The required field, retainBillingCycle, is missing.")
    public static let nullEffective = Self("NullEffectiveError", 4000111, "The required field, effective, is missing.")
    public static let nullNewSKU = Self("NullNewSKUError", 4000112, "The required field, SKU in changeItems, is missing.")
    public static let invalidDisplayName = Self("InvalidDisplayNameError", 4000118, "The displayName is invalid.")
    public static let invalidDescription = Self("InvalidDescriptionError", 4000119, "The description is invalid.")
    public static let invalidSKU = Self("InvalidSKUError", 4000122, "The SKU was invalid.")
    public static let invalidChangeReason = Self("InvalidChangeReasonError", 4000125, "The change reason is invalid.")
    public static let invalidOfferReason = Self("InvalidOfferReasonError", 4000126, "The offer reason is invalid.")
    public static let invalidTaxProductCode = Self("InvalidTaxProductCodeError", 4000127, "The taxCode is invalid.")
    public static let invalidOfferPeriod = Self("InvalidOfferPeriodError", 4000128, "The offer period is invalid.")
    public static let invalidOfferPeriodCount = Self("InvalidOfferPeriodCountError", 4000129, "The offer periodCount is invalid.")
    public static let invalidRenewalPeriod = Self("InvalidRenewalPeriodError", 4000130, "The renewal period is invalid.")
    public static let invalidAmount = Self("InvalidAmountError", 4000132, "The amount is invalid.")
    public static let emptyAddChangeItems = Self(
        "EmptyAddChangeItemsError", 4000139, "The addItems and changeItems entries cannot be empty.")
    public static let missingUpdatedItemsWithPeriodChange = Self(
        "MissingUpdatedItemsWithPeriodChangeError", 4000140, "All items must be updated on a period change.")
    public static let periodResetWithRetainBillingCycle = Self(
        "PeriodResetWithRetainBillingCycleError", 4000141, "Period reset conflicts with retaining billing cycle.")
    public static let periodChangeEffectiveConflict = Self(
        "PeriodChangeEffectiveConflictError", 4000142,
        "A period change at next cycle conflicts with addition at the current period.")
    public static let multipleOperationsOnSingleSKU = Self(
        "MultipleOperationsOnSingleSKUError", 4000143, "Multiple operations on a single SKU isn't allowed.")
    public static let billingCycleResetWithEffectiveLater = Self(
        "BillingCycleResetWithEffectiveLaterError", 4000148, "Bill cycle reset with effective later.")
    public static let periodChangeImmediateWithEffectiveAtNextBillingCycle = Self(
        "PeriodChangeImmediateWithEffectiveAtNextBillingCycleError", 4000149, "Period change immediately with effective later.")
    public static let multiplePrices = Self(
        "MultiplePricesError", 4000150, "Prorated price and offer price are mutually exclusive.")
    public static let invalidProratedPrice = Self("InvalidProratedPriceError", 4000151, "The prorated price was invalid.")
    public static let invalidOfferPrice = Self(
        "InvalidOfferPriceError", 4000152, "The subscription offer price is higher than the regular subscription price.")
    public static let atLeastOneItem = Self("AtLeastOneItemError", 4000160, "When included, provide at least one item in items.")
    public static let atLeastOneOfDisplayNameOrDescription = Self(
        "AtLeastOneOfDisplayNameOrDescriptionError", 4000165, "Provide either the displayName or a description.")
    public static let nullCurrentSKU = Self("NullCurrentSKUError", 4000169, "The required field, currentSKU, is missing.")
    public static let currentSKULengthExceeded = Self(
        "CurrentSKULengthExceededError", 4000170, "Exceeds the maximum length of the currentSKU field.")
    public static let invalidOperation = Self("InvalidOperationError", 4000172, "The operation is invalid.")
    public static let malformedPayload = Self("MalformedPayloadError", 4000173, "The payload is malformed.")
    /// Apple publishes no message (Dec 2025); this one is ours.
    public static let itemCannotBeSpecifiedMultipleTimes = Self(
        "ItemCannotBeSpecifiedMultipleTimesError", 4000194, "The same item cannot be specified more than once.")
    /// Apple publishes no message (API 1.2); this one is ours.
    public static let invalidProratedPriceForChangeItemWithEffectiveLater = Self(
        "InvalidProratedPriceForChangeItemWithEffectiveLaterError", 4000222,
        "A change item that takes effect later cannot have a prorated price.")
    /// Apple publishes no message (API 1.2); this one is ours.
    public static let freeTrialOfferMustUsePeriodCountOfOne = Self(
        "FreeTrialOfferMustUsePeriodCountOfOneError", 4000223, "A free trial offer must use a periodCount of 1.")
}
