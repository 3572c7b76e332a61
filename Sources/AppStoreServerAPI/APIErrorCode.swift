/// An App Store Server API error code (`errorCode` of an error answer), with Apple's name.
///
/// The list is Apple's (its App Store Server Libraries' `APIError`, 87 codes); a code Apple adds
/// later is kept as a number, with no name. Retryable: the codes Apple names retryable ("but you
/// can try again"), and 4290000, rate limited.
/// https://developer.apple.com/documentation/appstoreserverapi/error-codes
public struct APIErrorCode: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Apple's name for the code (`TransactionIdNotFoundError`), nil for a code not in the list.
    public var name: String? { Self.names[rawValue] }

    /// Whether Apple says the same call may succeed later.
    public var isRetryable: Bool { Self.retryable.contains(rawValue) }

    public var description: String { name.map { "\($0) (\(rawValue))" } ?? String(rawValue) }

    public static let rateLimitExceeded = APIErrorCode(4_290_000)
    public static let transactionIdNotFound = APIErrorCode(4_040_010)
    public static let invalidTransactionId = APIErrorCode(4_000_006)
    public static let originalTransactionIdNotFound = APIErrorCode(4_040_005)
    public static let accountNotFound = APIErrorCode(4_040_001)
    public static let accountNotFoundRetryable = APIErrorCode(4_040_002)
    public static let invalidPaginationToken = APIErrorCode(4_000_014)
    public static let paginationTokenExpired = APIErrorCode(4_000_017)
    public static let startDateTooFarInPast = APIErrorCode(4_000_012)

    static let retryable: Set<Int64> = [4_040_002, 4_040_004, 4_040_006, 4_290_000, 5_000_001]

    static let names: [Int64: String] = [
        4_000_000: "GeneralBadRequestError",
        4_000_002: "InvalidAppIdentifierError",
        4_000_005: "InvalidRequestRevisionError",
        4_000_006: "InvalidTransactionIdError",
        4_000_008: "InvalidOriginalTransactionIdError",
        4_000_009: "InvalidExtendByDaysError",
        4_000_010: "InvalidExtendReasonCodeError",
        4_000_011: "InvalidRequestIdentifierError",
        4_000_012: "StartDateTooFarInPastError",
        4_000_013: "StartDateAfterEndDateError",
        4_000_014: "InvalidPaginationTokenError",
        4_000_015: "InvalidStartDateError",
        4_000_016: "InvalidEndDateError",
        4_000_017: "PaginationTokenExpiredError",
        4_000_018: "InvalidNotificationTypeError",
        4_000_019: "MultipleFiltersSuppliedError",
        4_000_020: "InvalidTestNotificationTokenError",
        4_000_021: "InvalidSortError",
        4_000_022: "InvalidProductTypeError",
        4_000_023: "InvalidProductIdError",
        4_000_024: "InvalidSubscriptionGroupIdentifierError",
        4_000_025: "InvalidExcludeRevokedError",
        4_000_026: "InvalidInAppOwnershipTypeError",
        4_000_027: "InvalidEmptyStorefrontCountryCodeListError",
        4_000_028: "InvalidStorefrontCountryCodeError",
        4_000_030: "InvalidRevokedError",
        4_000_031: "InvalidStatusError",
        4_000_032: "InvalidAccountTenureError",
        4_000_033: "InvalidAppAccountTokenError",
        4_000_034: "InvalidConsumptionStatusError",
        4_000_035: "InvalidCustomerConsentedError",
        4_000_036: "InvalidDeliveryStatusError",
        4_000_037: "InvalidLifetimeDollarsPurchasedError",
        4_000_038: "InvalidLifetimeDollarsRefundedError",
        4_000_039: "InvalidPlatformError",
        4_000_040: "InvalidPlayTimeError",
        4_000_041: "InvalidSampleContentProvidedError",
        4_000_042: "InvalidUserStatusError",
        4_000_043: "InvalidTransactionNotConsumableError",
        4_000_047: "InvalidTransactionTypeNotSupportedError",
        4_000_048: "AppTransactionIdNotSupportedError",
        4_000_161: "InvalidImageError",
        4_000_162: "HeaderTooLongError",
        4_000_163: "BodyTooLongError",
        4_000_164: "InvalidLocaleError",
        4_000_175: "AltTextTooLongError",
        4_000_183: "InvalidAppAccountTokenUUIDError",
        4_000_185: "FamilyTransactionNotSupportedError",
        4_000_187: "TransactionIdIsNotOriginalTransactionIdError",
        4_000_211: "InvalidPerformanceTestRequestError",
        4_000_212: "InvalidRequestIdError",
        4_000_213: "ExistingPerformanceTestRunError",
        4_000_215: "BadRequestRealtimeUrlError",
        4_000_216: "BadRequestImageSizeError",
        4_000_218: "BadRequestTooManyBulletPointsError",
        4_000_219: "BadRequestBulletPointTextTooLongError",
        4_000_224: "BadRequestAboveImageRequiresAnImageError",
        4_030_004: "SubscriptionExtensionIneligibleError",
        4_030_005: "SubscriptionMaxExtensionError",
        4_030_007: "FamilySharedSubscriptionExtensionIneligibleError",
        4_030_014: "MaximumNumberOfImagesReachedError",
        4_030_016: "MaximumNumberOfMessagesReachedError",
        4_030_017: "MessageNotApprovedError",
        4_030_018: "ImageNotApprovedError",
        4_030_019: "ImageInUseError",
        4_030_026: "ForbiddenNoPassingTestError",
        4_040_001: "AccountNotFoundError",
        4_040_002: "AccountNotFoundRetryableError",
        4_040_003: "AppNotFoundError",
        4_040_004: "AppNotFoundRetryableError",
        4_040_005: "OriginalTransactionIdNotFoundError",
        4_040_006: "OriginalTransactionIdNotFoundRetryableError",
        4_040_007: "ServerNotificationUrlNotFoundError",
        4_040_008: "TestNotificationNotFoundError",
        4_040_009: "StatusRequestNotFoundError",
        4_040_010: "TransactionIdNotFoundError",
        4_040_014: "ImageNotFoundError",
        4_040_015: "MessageNotFoundError",
        4_040_018: "PerformanceTestRunNotFoundError",
        4_040_019: "AppTransactionDoesNotExistError",
        4_040_020: "DefaultMessageNotFoundError",
        4_040_021: "RealtimeUrlNotFoundError",
        4_090_000: "ImageAlreadyExistsError",
        4_090_001: "MessageAlreadyExistsError",
        4_290_000: "RateLimitExceededError",
        5_000_000: "GeneralInternalError",
        5_000_001: "GeneralInternalRetryableError",
    ]
}
