/// The Apple platform on which the customer originally bought the app.
///
/// https://developer.apple.com/documentation/storekit/appstore/platform
public enum PurchasePlatform: OpenEnum {
    case iOS
    case macOS
    case tvOS
    case visionOS
    case unknown(String)

    public static let knownValues: [Self] = [
        .iOS, .macOS, .tvOS, .visionOS,
    ]

    public var rawValue: String {
        switch self {
        case .iOS: "iOS"
        case .macOS: "macOS"
        case .tvOS: "tvOS"
        case .visionOS: "visionOS"
        case .unknown(let rawValue): rawValue
        }
    }
}
