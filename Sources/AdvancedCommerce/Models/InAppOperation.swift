import AppStore

/// The `operation` value that names which in-app request a payload is.
///
/// Named `InAppOperation` because Foundation already has an `Operation` class.
/// https://developer.apple.com/documentation/advancedcommerceapi/onetimechargecreaterequest
public enum InAppOperation: OpenEnum {
    case createOneTimeCharge
    case createSubscription
    case modifySubscription
    case reactivateSubscription
    case unknown(String)

    public static let knownValues: [Self] = [
        .createOneTimeCharge, .createSubscription, .modifySubscription, .reactivateSubscription,
    ]

    public var rawValue: String {
        switch self {
        case .createOneTimeCharge: "CREATE_ONE_TIME_CHARGE"
        case .createSubscription: "CREATE_SUBSCRIPTION"
        case .modifySubscription: "MODIFY_SUBSCRIPTION"
        case .reactivateSubscription: "REACTIVATE_SUBSCRIPTION"
        case .unknown(let rawValue): rawValue
        }
    }
}
