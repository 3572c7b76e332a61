import Foundation

/// The status, headers and body a handler answers with.
///
/// The server adds `Content-Length` itself; handlers set `Content-Type` through the helpers.
public struct HTTPResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers, sent as given.
    public var headers: [String: String]
    /// The response body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A text response, UTF-8 encoded.
    public static func text(
        _ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8"
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    /// A JSON response from an already encoded body, with `Content-Type: application/json`.
    public static func json(_ body: Data, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// The JSON error body every RevenueDot endpoint uses:
    /// `{"error": {"code": "...", "message": "..."}}`.
    ///
    /// The code is stable for clients to switch on; the message is for people. Both are escaped
    /// here by hand so that this module needs no other RevenueDot module.
    public static func error(status: Int, code: String, message: String) -> HTTPResponse {
        var text = #"{"error":{"code":"#
        appendJSONString(code, to: &text)
        text += #","message":"#
        appendJSONString(message, to: &text)
        text += "}}"
        return .json(Data(text.utf8), status: status)
    }

    /// A 503 with RevenueDot's error body, asking for the request again in a second.
    public static func retryLater(_ code: String, _ message: String) -> HTTPResponse {
        var refusal = error(status: 503, code: code, message: message)
        refusal.headers["Retry-After"] = "1"
        return refusal
    }

    /// Appends `value` as a JSON string literal (RFC 8259, section 7).
    static func appendJSONString(_ value: String, to text: inout String) {
        text.append("\"")
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text.append("\\\"")
            case "\\": text.append("\\\\")
            case "\n": text.append("\\n")
            case "\r": text.append("\\r")
            case "\t": text.append("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text.append("\"")
    }
}
