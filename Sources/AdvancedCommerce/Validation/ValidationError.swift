/// A reason Apple would reject an in-app request, with the field it is about.
///
/// Carries Apple's error name and code so the app (or a log line) shows the same thing Apple's server
/// would return, plus a JSON path so the developer knows which entry of which list to fix.
public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Apple's error name, e.g. `ChangeItemNotFoundError`.
    public var name: String { error.name }
    /// Apple's numeric error code, e.g. 4000146.
    public var code: Int { error.code }
    /// The error from Apple's catalog.
    public let error: AdvancedCommerceErrorCode
    /// The JSON path of the offending field, e.g. `changeItems[0].currentSKU`; empty for the request as a whole.
    public let field: String
    /// Apple's message, followed by what exactly was wrong when that helps.
    public let message: String

    public init(_ error: AdvancedCommerceErrorCode, field: String, detail: String? = nil) {
        self.error = error
        self.field = field
        self.message = detail.map { "\(error.message) \($0)" } ?? error.message
    }

    public var description: String { Self.line(name: name, code: code, field: field, message: message) }

    /// How an error reads on one line: `ChangeItemNotFoundError (4000146) at changeItems[0].currentSKU: …`.
    public static func line(name: String, code: Int, field: String, message: String) -> String {
        "\(name) (\(code)) at \(field.isEmpty ? "<request>" : field): \(message)"
    }
}
