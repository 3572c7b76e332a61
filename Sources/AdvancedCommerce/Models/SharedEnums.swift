import AppStore

/// The duration of one billing cycle of a subscription (`P1W` … `P1Y`): the same values the
/// transactions' `advancedCommerceInfo` reports, so requests and live state share one type.
/// https://developer.apple.com/documentation/advancedcommerceapi/period
public typealias Period = AdvancedCommercePeriod

/// The duration of an offer's period, which allows more values than a billing cycle.
/// https://developer.apple.com/documentation/advancedcommerceapi/offerperiod
public typealias OfferPeriod = AdvancedCommerceOfferPeriod

/// Why an offer is given (`ACQUISITION`, `WIN_BACK`, `RETENTION`), as transactions report it too.
/// https://developer.apple.com/documentation/advancedcommerceapi/offerreason
public typealias OfferReason = AdvancedCommerceOfferReason
