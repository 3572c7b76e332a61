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

    /// Creates a router with no routes.
    public init() {}

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

    /// Finds the route for `method` and `path` (the path without its query string).
    public func match(method: String, path: String) -> Match {
        guard path.utf8.first == Self.slash else { return .notFound }
        let pathSegments = Self.segments(of: path)
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
    /// comparison of `String` (7.5 us of every request to the ingest route, perf).
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
        return segments
    }

    /// The captured parameters when `segments` matches `path`, or nil.
    private static func parameters(_ segments: [Segment], _ path: [Substring.UTF8View]) -> [String: String]? {
        guard segments.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, path) {
            switch segment {
            case .literal(let literal):
                guard value.elementsEqual(literal) else { return nil }
            case .parameter(let name):
                guard !value.isEmpty else { return nil }
                parameters[name] = String(Substring(value))
            }
        }
        return parameters
    }
}
