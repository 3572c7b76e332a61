import AppStore

/// The outcome of one of Apple's attempts to deliver a notification.
///
/// https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult
public enum SendAttemptResult: OpenEnum {
    case success
    case timedOut
    case tlsIssue
    case circularRedirect
    case noResponse
    case socketIssue
    case unsupportedCharset
    case invalidResponse
    case prematureClose
    case unsuccessfulHTTPResponseCode
    case other
    case unknown(String)

    public static let knownValues: [Self] = [
        .success, .timedOut, .tlsIssue, .circularRedirect, .noResponse, .socketIssue, .unsupportedCharset, .invalidResponse,
        .prematureClose, .unsuccessfulHTTPResponseCode, .other,
    ]

    public var rawValue: String {
        switch self {
        case .success: "SUCCESS"
        case .timedOut: "TIMED_OUT"
        case .tlsIssue: "TLS_ISSUE"
        case .circularRedirect: "CIRCULAR_REDIRECT"
        case .noResponse: "NO_RESPONSE"
        case .socketIssue: "SOCKET_ISSUE"
        case .unsupportedCharset: "UNSUPPORTED_CHARSET"
        case .invalidResponse: "INVALID_RESPONSE"
        case .prematureClose: "PREMATURE_CLOSE"
        case .unsuccessfulHTTPResponseCode: "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
        case .other: "OTHER"
        case .unknown(let rawValue): rawValue
        }
    }
}
