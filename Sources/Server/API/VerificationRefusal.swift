import AppStore
import HTTP

/// The 401 a client gets for signed data it posted that did not verify.
///
/// The verification status is the code, as on the notification endpoint. The message says
/// what failed in the client's own data (the signature, the chain, the JWS); it leaves out
/// what the server expected where the data is for another app or environment: the app's
/// bundle id, app Apple ID and accepted environments are the server's configuration, and
/// the public key that reaches this endpoint ships inside every copy of the app.
enum VerificationRefusal {
    static func response(_ error: VerificationError, of what: String) -> HTTPResponse {
        let message =
            switch error.status {
            case .invalidAppIdentifier: "the \(what) is not this app's (its bundle id or app Apple ID)"
            case .invalidEnvironment: "the \(what) is from an environment this app does not accept"
            default: error.detail
            }
        return .error(status: 401, code: error.status.rawValue, message: message)
    }
}
