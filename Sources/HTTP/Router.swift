/// A request handler. It runs synchronously on a server worker thread and may block, so the
/// worker pool size bounds how many handlers run at once.
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// A handler that answers later: it calls `reply` exactly once, on any thread, and must not block.
///
/// The server suspends the connection while the answer is pending, so the worker thread serves
/// other connections meanwhile; use it for work that waits on something else (a storage commit).
public typealias HTTPDeferredHandler = @Sendable (HTTPRequest, _ reply: @escaping @Sendable (HTTPResponse) -> Void) -> Void

/// What a route runs.
public enum RouteHandler: Sendable {
    /// Answers on the worker thread before returning.
    case immediate(HTTPHandler)
    /// Answers later through its reply closure.
    case deferred(HTTPDeferredHandler)
}

/// Maps a method and a path to a handler, with `{name}` segments captured as path parameters.
///
/// A route with more literal segments wins over one with parameters in their place, so
/// `/v1/items/latest` can sit beside `/v1/items/{id}`; among equals, the first added wins.
/// `HEAD` is answered by the `GET` route (the server sends no body for it).
public struct Router: Sendable {
    /// The outcome of matching a request against the routes.
    public enum Match: Sendable {
        /// A route matched; `route` is its pattern, stable enough for metric labels.
        case found(RouteHandler, route: String, parameters: [String: String])
        /// No route has this path.
        case notFound
        /// Some route has this path, but not for this method; `allowed` is for the `Allow` header.
        case methodNotAllowed(allowed: [String])
        /// A segment's percent-escapes decode to bytes that are not UTF-8 (`%FF`): no text names
        /// them, and replacing them would map different paths to one customer.
        case invalidPath(String)
    }

    private enum Segment: Sendable, Equatable {
        /// A segment that must equal these UTF-8 bytes.
        case literal([UInt8])
        case parameter(String)
    }

    private struct Route: Sendable {
        var method: String
        var pattern: String
        var segments: [Segment]
        var handler: RouteHandler
        var literalCount: Int
    }

    private var routes: [Route] = []
    /// How the server's own answers (404, 405, 400 for the path or the framing, 413, 503) are
    /// shaped for paths under a prefix (its segments' bytes) whose routes answer errors in
    /// another shape.
    private var refusalShapes: [(prefix: [[UInt8]], shape: @Sendable (HTTPResponse) -> HTTPResponse)] = []

    /// Smaller body limits than the server's for paths under a prefix (its segments' bytes).
    private var bodyLimits: [(prefix: [[UInt8]], bytes: Int)] = []

    /// Creates a router with no routes.
    public init() {}

    /// Takes bodies of at most `bytes` (and never more than the server's `maxBodyBytes`) for
    /// `prefix` and the paths under it (`/` for every path): a route whose bodies are small
    /// refuses a larger one, from its head when it declares its length, else as soon as it
    /// passes the limit, and never parses it. The first prefix added that matches wins;
    /// segments are compared decoded, as routes are.
    public mutating func limitBodies(under prefix: String, to bytes: Int) {
        let segments = prefix == "/" ? [] : Self.segments(of: prefix).map { Array($0) }
        bodyLimits.append((segments, max(0, bytes)))
    }

    /// The body limit `limitBodies` gives `path`, if any.
    public func bodyLimit(for path: String) -> Int? {
        guard !bodyLimits.isEmpty, path.utf8.first == Self.slash else { return nil }
        let segments = Self.segments(of: path)
        return bodyLimits.first { Self.isUnder($0.prefix, segments) }?.bytes
    }

    /// Whether a path of `segments` is `prefix` or a path under it, segments compared decoded.
    private static func isUnder(_ prefix: [[UInt8]], _ segments: [Substring.UTF8View]) -> Bool {
        guard prefix.count <= segments.count else { return false }
        // A broken escape matches no literal: a literal holds no `%`.
        return zip(prefix, segments).allSatisfy { literal, raw in decode(raw).segment(raw)?.equals(literal) ?? false }
    }

    /// Gives the server's own answers to requests for `prefix` or a path under it (`prefix/…`)
    /// through `shape`, so that a client of those routes reads every error in their shape; the
    /// first prefix added that matches wins. Segments are compared decoded, as routes are, so
    /// `/v1/%73ubscribers/bob` is under `/v1/subscribers`.
    public mutating func shapeRefusals(under prefix: String, _ shape: @escaping @Sendable (HTTPResponse) -> HTTPResponse) {
        refusalShapes.append((Self.segments(of: prefix).map { Array($0) }, shape))
    }

    /// `answer` as the server gives it for `path` (a path as sent, or a route's pattern).
    public func shapedRefusal(_ answer: HTTPResponse, path: String) -> HTTPResponse {
        guard !refusalShapes.isEmpty, path.utf8.first == Self.slash else { return answer }
        let segments = Self.segments(of: path)
        return refusalShapes.first { Self.isUnder($0.prefix, segments) }?.shape(answer) ?? answer
    }

    /// Adds a route. `pattern` is a path like `/v1/apple/notifications/{appId}`, where each
    /// `{name}` matches exactly one non-empty segment.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        add(method, pattern, handler: .immediate(handler))
    }

    /// Adds a route whose handler answers later (see `HTTPDeferredHandler`).
    public mutating func addDeferred(_ method: String, _ pattern: String, _ handler: @escaping HTTPDeferredHandler) {
        add(method, pattern, handler: .deferred(handler))
    }

    private mutating func add(_ method: String, _ pattern: String, handler: RouteHandler) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            segment -> Segment in
            if segment.count > 2, segment.first == "{", segment.last == "}" {
                return .parameter(String(segment.dropFirst().dropLast()))
            }
            return .literal(Array(segment.utf8))
        }
        let literalCount = segments.filter { if case .literal = $0 { true } else { false } }.count
        let route = Route(
            method: method.uppercased(), pattern: pattern, segments: segments, handler: handler,
            literalCount: literalCount)
        // Keep routes sorted by specificity; a stable insertion keeps the first-added order among equals.
        let index = routes.firstIndex { $0.literalCount < literalCount } ?? routes.endIndex
        routes.insert(route, at: index)
    }

    /// Finds the route for `method` and `path` (the path as sent, without its query string).
    ///
    /// A path may end in one slash (`/health/` is `/health`). Each segment is matched with its
    /// percent-escapes decoded, so `%2F` stays inside its
    /// segment: `/v1/subscribers/team%2Fbob` gives `app_user_id` `team/bob`. A `%` not followed by
    /// two hex digits (RFC 3986 has no such path), and escapes that decode to anything but UTF-8,
    /// are `invalidPath`: taken as they are, `%` and `%25` would name one customer.
    public func match(method: String, path: String) -> Match {
        guard path.utf8.first == Self.slash else { return .notFound }
        var pathSegments: [PathSegment] = []
        for (index, raw) in Self.segments(of: path).enumerated() {
            guard let segment = Self.decode(raw).segment(raw) else {
                return .invalidPath("path segment \(index + 1) holds a % not followed by two hex digits (a % is written %25)")
            }
            if let decoded = segment.decoded, String(validating: decoded, as: UTF8.self) == nil {
                return .invalidPath("path segment \(index + 1) decodes to bytes that are not UTF-8")
            }
            pathSegments.append(segment)
        }
        var allowed: [String] = []
        let wanted = method == "HEAD" ? "GET" : method
        for route in routes {
            guard let parameters = Self.parameters(route.segments, pathSegments) else { continue }
            if route.method == wanted || route.method == method {
                return .found(route.handler, route: route.pattern, parameters: parameters)
            }
            if !allowed.contains(route.method) {
                allowed.append(route.method)
            }
        }
        // A GET route answers HEAD too.
        if allowed.contains("GET"), !allowed.contains("HEAD") { allowed.append("HEAD") }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed.sorted())
    }

    private static let slash = UInt8(ascii: "/")

    /// The segments of `path` after its leading slash, empty ones included ("/a/" gives "a" and
    /// ""), as UTF-8 views: matching compares bytes, without the Unicode-aware splitting and
    /// comparison of `String`, which every request would pay for.
    private static func segments(of path: String) -> [Substring.UTF8View] {
        let utf8 = path.utf8
        var segments: [Substring.UTF8View] = []
        var start = utf8.index(after: utf8.startIndex)
        var index = start
        while index < utf8.endIndex {
            if utf8[index] == slash {
                segments.append(utf8[start..<index])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        segments.append(utf8[start..<utf8.endIndex])
        // One trailing slash is the same path: a notification URL pasted into App Store Connect
        // with one would otherwise lose every notification sent to it.
        if segments.count > 1, segments.last?.isEmpty == true { segments.removeLast() }
        return segments
    }

    /// A segment of the request's path, and its bytes decoded when it has escapes (most have
    /// none, and are compared in place).
    private struct PathSegment {
        var raw: Substring.UTF8View
        var decoded: [UInt8]?

        func equals(_ literal: [UInt8]) -> Bool { decoded.map { $0 == literal } ?? raw.elementsEqual(literal) }
        var isEmpty: Bool { decoded?.isEmpty ?? raw.isEmpty }
        var text: String { decoded.map { String(decoding: $0, as: UTF8.self) } ?? String(Substring(raw)) }
    }

    /// What a segment's percent-escapes give.
    private enum Decoding {
        /// No `%`: the segment is compared in place.
        case plain
        /// Its bytes, every escape decoded.
        case decoded([UInt8])
        /// A `%` not followed by two hex digits.
        case brokenEscape

        /// `raw` as a segment to match, nil for a broken escape.
        func segment(_ raw: Substring.UTF8View) -> PathSegment? {
            switch self {
            case .plain: PathSegment(raw: raw, decoded: nil)
            case .decoded(let bytes): PathSegment(raw: raw, decoded: bytes)
            case .brokenEscape: nil
            }
        }
    }

    /// Decodes `segment`'s percent-escapes in one pass.
    private static func decode(_ segment: Substring.UTF8View) -> Decoding {
        guard segment.contains(UInt8(ascii: "%")) else { return .plain }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.count)
        var iterator = segment.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(), let value = hex(high, low) else {
                return .brokenEscape
            }
            bytes.append(value)
        }
        return .decoded(bytes)
    }

    private static func hex(_ high: UInt8, _ low: UInt8) -> UInt8? {
        func digit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        guard let high = digit(high), let low = digit(low) else { return nil }
        return high << 4 | low
    }

    /// The captured parameters when `segments` matches `path` (decoded segments), or nil.
    private static func parameters(_ segments: [Segment], _ path: [PathSegment]) -> [String: String]? {
        guard segments.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, path) {
            switch segment {
            case .literal(let literal):
                guard value.equals(literal) else { return nil }
            case .parameter(let name):
                guard !value.isEmpty else { return nil }
                parameters[name] = value.text
            }
        }
        return parameters
    }
}
