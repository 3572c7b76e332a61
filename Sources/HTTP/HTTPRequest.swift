import Foundation

/// One HTTP request as the server hands it to a handler, with the whole body read.
///
/// Header names are lower-cased so lookups do not depend on how the client spelled them;
/// a header sent more than once is joined with ", " (RFC 9110, section 5.3).
public struct HTTPRequest: Sendable {
    /// The request method, such as "GET" or "POST".
    public var method: String
    /// The request path as the client sent it, without the query string: percent-escapes are not
    /// decoded here (the router decodes each segment, so `%2F` stays inside a path parameter).
    public var path: String
    /// The query arguments, decoded; of a name given more than once, the last value.
    public var query: [String: String]
    /// The query arguments in order, decoded, repeats kept (`status=1&status=2`).
    public var queryItems: [HTTPQueryItem]
    /// The request headers, names lower-cased.
    public var headers: [String: String]
    /// The request body; empty when the request has none.
    public var body: Data
    /// The values of the `{name}` segments of the route that matched, filled by the router.
    public var pathParameters: [String: String]

    /// Creates a request; the server builds these, tests may too.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: Data = Data(), pathParameters: [String: String] = [:], queryItems: [HTTPQueryItem]? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.queryItems = queryItems ?? query.sorted { $0.key < $1.key }.map { HTTPQueryItem(name: $0.key, value: $0.value) }
        self.headers = [:]
        for (name, value) in headers {
            self.headers[name.lowercased()] = value
        }
        self.body = body
        self.pathParameters = pathParameters
    }

    /// Every value of the query argument `name`, in order.
    public func queryValues(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.map(\.value)
    }

    /// The value of the header `name`, whatever its case.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// One query argument, decoded.
public struct HTTPQueryItem: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
