import Foundation

/// A response read by `LoopbackConnection`.
public struct LoopbackResponse: Sendable {
    /// The status code from the status line.
    public var status: Int
    /// The response headers, names lower-cased; a repeated header is joined with ", ".
    public var headers: [String: String]
    /// The body, de-chunked when it was sent chunked.
    public var body: Data
    /// Whether the body was longer than the exchange's `maxBodyBytes`: `body` holds its first
    /// `maxBodyBytes` bytes, the rest was never read, and the connection is closed.
    public var isTruncated: Bool

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), isTruncated: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.isTruncated = isTruncated
    }

    /// The body as UTF-8 text, for assertions and logs.
    public var text: String { String(decoding: body, as: UTF8.self) }
}
