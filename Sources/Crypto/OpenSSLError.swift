import COpenSSL

/// A failed OpenSSL call, with the text of OpenSSL's error queue at the moment it failed.
public struct OpenSSLError: Error, CustomStringConvertible, Sendable {
    /// The OpenSSL function that failed.
    public var function: String
    /// OpenSSL's own explanation (`ERR_error_string_n` of every queued error), possibly empty.
    public var reason: String

    /// Captures and clears the calling thread's OpenSSL error queue.
    package init(_ function: String) {
        self.function = function
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.reason = reasons.joined(separator: "; ")
    }

    package init(_ function: String, reason: String) {
        ERR_clear_error()
        self.function = function
        self.reason = reason
    }

    public var description: String { reason.isEmpty ? "\(function) failed" : "\(function) failed: \(reason)" }
}

/// Checks an OpenSSL return code where 1 means success.
@inline(__always)
package func checkOne(_ result: Int32, _ function: String) throws(OpenSSLError) {
    guard result == 1 else { throw OpenSSLError(function) }
}

/// Checks an OpenSSL return code where a positive value means success.
@inline(__always)
package func checkPositive(_ result: Int32, _ function: String) throws(OpenSSLError) {
    guard result > 0 else { throw OpenSSLError(function) }
}
