import Foundation
import FuzzSupport
import HTTP

/// The request router (`Router.match`): route patterns with path parameters, percent-decoding.
///
/// The input is lines: a method, a path, then any number of `METHOD /pattern` routes added after
/// the service's own. Beyond not crashing: a path with a `%` that starts no two-hex-digit escape
/// is an invalid path; any other matches the same with every byte of every segment
/// percent-escaped (each segment is matched decoded, so escapes cannot move a segment boundary
/// or change what matches); and a parameter is never empty.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzRouter.test(UnsafeRawBufferPointer(fuzzInput: data, count: size))
    return 0
}

@main
enum FuzzRouter {
    static func main() { FuzzDriver.main(fuzzOneInput) }

    /// The service's routes (`Routes.router` in RevenueDot).
    static let serviceRoutes = [
        ("POST", "/v1/advanced-commerce/{appId}/requests"),
        ("GET", "/v1/advanced-commerce/{appId}/requests/{requestReferenceId}"),
        ("GET", "/v1/events"),
        ("GET", "/v1/subscribers/{app_user_id}"),
        ("POST", "/v1/subscribers/{app_user_id}/transactions"),
        ("POST", "/v1/apple/notifications/{appId}"),
        ("GET", "/health"),
        ("GET", "/metrics"),
    ]

    static func test(_ bytes: UnsafeRawBufferPointer) {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        guard lines.count >= 2 else { return }
        var router = Router()
        var patterns = Set<String>()
        var added = serviceRoutes
        for line in lines.dropFirst(2).prefix(16) {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            added.append((String(parts[0]), String(parts[1])))
        }
        for (method, pattern) in added {
            router.add(method, pattern) { _ in HTTPResponse(status: 200) }
            patterns.insert(pattern)
        }
        let (method, path) = (lines[0], lines[1])
        let match = router.match(method: method, path: path)
        if case .found(_, let route, let parameters) = match {
            precondition(patterns.contains(route), "matched a route never added")
            precondition(!parameters.values.contains(""), "an empty path parameter")
        }
        if path.utf8.first == UInt8(ascii: "/"), hasBrokenEscape(path) {
            guard case .invalidPath = match else { preconditionFailure("a broken escape matched: \(path)") }
            return
        }
        guard let escaped = escapingEverySegment(path) else { return }
        precondition(
            summary(router.match(method: method, path: escaped)) == summary(match),
            "a path matches differently once every byte is escaped: \(escaped)")
    }

    /// The path with each segment decoded as the router documents (`%` and two hex digits) and
    /// every byte of it escaped again; nil for a path the router refuses (no leading slash).
    static func escapingEverySegment(_ path: String) -> String? {
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        let segments = Array(path.utf8.dropFirst()).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        return segments.map { segment in
            "/" + decoded(Array(segment)).map { String(format: "%%%02X", $0) }.joined()
        }.joined()
    }

    /// Whether some `%` in the path starts no escape of two hex digits.
    static func hasBrokenEscape(_ path: String) -> Bool {
        let raw = Array(path.utf8)
        return raw.indices.contains { index in
            guard raw[index] == UInt8(ascii: "%") else { return false }
            guard index + 2 < raw.count else { return true }
            return !raw[(index + 1)...(index + 2)].allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
            }
        }
    }

    static func decoded(_ raw: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = 0
        while index < raw.count {
            if raw[index] == UInt8(ascii: "%"), index + 2 < raw.count,
                let value = UInt8(String(decoding: raw[(index + 1)...(index + 2)], as: UTF8.self), radix: 16),
                raw[(index + 1)...(index + 2)].allSatisfy({ UInt8(ascii: "+") != $0 && UInt8(ascii: "-") != $0 })
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(raw[index])
                index += 1
            }
        }
        return bytes
    }

    /// What a match says, without its handler, to compare two matches.
    static func summary(_ match: Router.Match) -> String {
        switch match {
        case .found(_, let route, let parameters):
            "found \(route) "
                + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\(Array($0.value.utf8))" }.joined(separator: " ")
        case .notFound: "notFound"
        case .methodNotAllowed(let allowed): "methodNotAllowed \(allowed)"
        case .invalidPath: "invalidPath"
        }
    }
}
