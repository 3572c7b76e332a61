/// The server environment a signed object comes from.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/environment
public enum AppStoreEnvironment: OpenEnum {
    case production
    case sandbox
    /// StoreKit testing in Xcode: the data carries no App Store signature.
    case xcode
    /// Apple's libraries' unit-test value: the data carries no App Store signature.
    case localTesting
    case unknown(String)

    public static let knownValues: [Self] = [.production, .sandbox, .xcode, .localTesting]

    public var rawValue: String {
        switch self {
        case .production: "Production"
        case .sandbox: "Sandbox"
        case .xcode: "Xcode"
        case .localTesting: "LocalTesting"
        case .unknown(let rawValue): rawValue
        }
    }

    /// Whether data from this environment is signed by the App Store at all.
    public var isSignedByAppStore: Bool { self != .xcode && self != .localTesting }
}
