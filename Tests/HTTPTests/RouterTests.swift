import HTTP
import Testing

@Suite("Router")
struct RouterTests {
    private static func router() -> Router {
        var router = Router()
        router.add("POST", "/v1/apple/notifications/{appId}") { _ in .text("notify") }
        router.add("GET", "/v1/subscribers/{id}") { _ in .text("subscriber") }
        router.add("DELETE", "/v1/subscribers/{id}") { _ in .text("delete") }
        router.add("GET", "/v1/subscribers/{id}/entitlements/{name}") { _ in .text("entitlement") }
        router.add("GET", "/v1/subscribers/count") { _ in .text("count") }
        router.add("GET", "/health") { _ in .text("ok") }
        return router
    }

    struct Found: Sendable, CustomTestStringConvertible {
        var method: String
        var path: String
        var route: String
        var parameters: [String: String]
        var testDescription: String { "\(method) \(path)" }
    }

    @Test(arguments: [
        Found(
            method: "POST", path: "/v1/apple/notifications/com.example.app", route: "/v1/apple/notifications/{appId}",
            parameters: ["appId": "com.example.app"]),
        Found(method: "GET", path: "/v1/subscribers/42", route: "/v1/subscribers/{id}", parameters: ["id": "42"]),
        Found(
            method: "GET", path: "/v1/subscribers/42/entitlements/pro",
            route: "/v1/subscribers/{id}/entitlements/{name}", parameters: ["id": "42", "name": "pro"]),
        Found(method: "GET", path: "/v1/subscribers/count", route: "/v1/subscribers/count", parameters: [:]),
        Found(method: "HEAD", path: "/health", route: "/health", parameters: [:]),
        // Segments are compared and captured as bytes: a parameter keeps its characters as sent.
        Found(method: "GET", path: "/v1/subscribers/café ☕", route: "/v1/subscribers/{id}", parameters: ["id": "café ☕"]),
        // Escapes are decoded segment by segment: an encoded slash stays inside its parameter.
        Found(method: "GET", path: "/v1/subscribers/team%2Fbob", route: "/v1/subscribers/{id}", parameters: ["id": "team/bob"]),
        Found(
            method: "GET", path: "/v1/subscribers/a%2F%2fb%20c%C3%A9/entitlements/p%72o",
            route: "/v1/subscribers/{id}/entitlements/{name}", parameters: ["id": "a//b cé", "name": "pro"]),
        Found(method: "GET", path: "/v1/%73ubscribers/count", route: "/v1/subscribers/count", parameters: [:]),
        // One trailing slash is the same path (a URL pasted into App Store Connect with one).
        Found(
            method: "POST", path: "/v1/apple/notifications/com.example.app/", route: "/v1/apple/notifications/{appId}",
            parameters: ["appId": "com.example.app"]),
        Found(method: "GET", path: "/health/", route: "/health", parameters: [:]),
    ])
    func matchesRoutesAndCapturesParameters(_ expected: Found) throws {
        guard
            case .found(let handler, let route, let parameters) = Self.router().match(
                method: expected.method, path: expected.path)
        else {
            Issue.record("no match")
            return
        }
        #expect(route == expected.route)
        #expect(parameters == expected.parameters)
        guard case .immediate(let run) = handler else {
            Issue.record("expected an immediate handler")
            return
        }
        #expect(run(HTTPRequest(method: expected.method, path: expected.path)).status == 200)
    }

    @Test(arguments: [
        "/", "/v1/apple/notifications/", "/v1/apple/notifications", "/v1/apple/notifications/a/b",
        "/health//", "/v2/subscribers/1", "v1/subscribers/1", "", "//health", "/v1//notifications/a", "/HEALTH",
        "/v1/apple%2Fnotifications/a", "/health%2F",
    ])
    func unknownPathsAreNotFound(_ path: String) {
        guard case .notFound = Self.router().match(method: "POST", path: path) else {
            Issue.record("\(path) matched")
            return
        }
    }

    @Test(arguments: ["/v1/subscribers/%FF", "/v1/subscribers/ok/entitlements/%C3", "/nothing/%80"])
    func escapesThatAreNotUTF8AreAnInvalidPath(path: String) {
        guard case .invalidPath(let problem) = Self.router().match(method: "GET", path: path) else {
            Issue.record("\(path) matched")
            return
        }
        #expect(problem.hasSuffix("decodes to bytes that are not UTF-8"))
    }

    /// A `%` that starts no two-hex-digit escape: taken as sent, `100%` and `100%25` would be one id.
    @Test(arguments: ["/v1/subscribers/100%", "/v1/subscribers/%zz%4", "/v1/subscribers/%2", "/v1/subscribers/a%G0"])
    func aBrokenEscapeIsAnInvalidPath(path: String) {
        guard case .invalidPath(let problem) = Self.router().match(method: "GET", path: path) else {
            Issue.record("\(path) matched")
            return
        }
        #expect(problem.hasSuffix("holds a % not followed by two hex digits (a % is written %25)"))
        guard case .found(_, _, let parameters) = Self.router().match(method: "GET", path: "/v1/subscribers/100%25") else {
            Issue.record("100%25 did not match")
            return
        }
        #expect(parameters == ["id": "100%"])
    }

    /// The server's own answers are shaped for the prefix that takes the path, whole segments only.
    @Test(arguments: [
        ("/v1/subscribers", true), ("/v1/subscribers/", true), ("/v1/subscribers/%FF", true),
        ("/v1/subscribers/bob/alias", true), ("/v1/subscribersX", false), ("/v1/events", false), ("/", false),
        ("/v1/subscriber", false), ("/v1/%73ubscribers/bob", true), ("/v1/%73ubscribers", true), ("/V1/subscribers", false),
        ("/v1/subscribers%2Fbob", false),
    ])
    func refusalsAreShapedUnderTheirPrefix(path: String, shaped: Bool) {
        var router = Self.router()
        router.shapeRefusals(under: "/v1/subscribers") { answer in
            var answer = answer
            answer.headers["X-Shaped"] = "yes"
            return answer
        }
        let answer = router.shapedRefusal(.error(status: 404, code: "not_found", message: "no"), path: path)
        #expect((answer.headers["X-Shaped"] == "yes") == shaped)
    }

    @Test func wrongMethodListsTheAllowedOnes() {
        guard case .methodNotAllowed(let allowed) = Self.router().match(method: "PUT", path: "/v1/subscribers/7") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == ["DELETE", "GET", "HEAD"])
        guard case .methodNotAllowed(let onlyPost) = Self.router().match(method: "GET", path: "/v1/apple/notifications/a")
        else {
            Issue.record("expected 405")
            return
        }
        #expect(onlyPost == ["POST"])
    }
}
