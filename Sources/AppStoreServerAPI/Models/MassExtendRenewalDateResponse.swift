import AppStore

/// The identifier of a mass extension Apple is carrying out.
///
/// https://developer.apple.com/documentation/appstoreserverapi/massextendrenewaldateresponse
public struct MassExtendRenewalDateResponse: Codable, Hashable, Sendable {
    public var requestIdentifier: String?

    public init(
        requestIdentifier: String? = nil
    ) {
        self.requestIdentifier = requestIdentifier
    }
}
