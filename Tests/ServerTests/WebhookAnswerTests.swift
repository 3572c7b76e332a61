import Testing

@testable import Server
@testable import Storage
@testable import Tools

/// What an answer's status and `Location` make of an attempt: a table of values.
@Suite struct WebhookAnswerTests {
    @Test(arguments: [
        (WebhookAnswer(status: 200), DeliveryOutcome.delivered(status: 200)),
        (WebhookAnswer(status: 204, location: "http://x/"), .delivered(status: 204)),
        (WebhookAnswer(status: 500), .failed(status: 500, reason: "answered HTTP 500")),
        (WebhookAnswer(status: 404, location: "http://x/"), .failed(status: 404, reason: "answered HTTP 404")),
        (
            WebhookAnswer(status: 307, location: "https://example.com/new?a=1"),
            .failed(status: 307, reason: "answered HTTP 307 (redirect to https://example.com/new?a=1, not followed)")
        ),
        (
            WebhookAnswer(status: 301, location: "/moved"),
            .failed(status: 301, reason: "answered HTTP 301 (redirect to /moved, not followed)")
        ),
        (WebhookAnswer(status: 302), .failed(status: 302, reason: "answered HTTP 302")),
        (
            WebhookAnswer(status: 304, location: "http://x/"),
            .failed(status: 304, reason: "answered HTTP 304 (redirect to http://x/, not followed)")
        ),
    ])
    func outcome(answer: WebhookAnswer, outcome: DeliveryOutcome) {
        #expect(answer.outcome == outcome)
    }

    /// A `Location` is quoted as printable ASCII: control characters (a terminal's escape
    /// sequences), spaces and non-ASCII are percent-encoded.
    @Test(arguments: [
        ("http://a/b?c=d#e", "http://a/b?c=d#e"), ("http://a/\u{1B}[31mred", "http://a/%1B[31mred"),
        ("http://a/x y", "http://a/x%20y"), ("http://a/é", "http://a/%C3%A9"), ("a\r\nb\u{0}", "a%0D%0Ab%00"),
        ("http://a/\u{202E}", "http://a/%E2%80%AE"), ("", ""),
    ])
    func quotesPrintableASCII(location: String, quoted: String) {
        #expect(WebhookAnswer.quoted(location) == quoted)
    }

    /// A long `Location` is cut at `maxQuotedLocationBytes`, never inside a percent-encoded byte.
    @Test func boundsTheQuotedLength() {
        let long = "http://a/" + String(repeating: "x", count: 10_000)
        let quoted = WebhookAnswer.quoted(long)
        #expect(quoted.utf8.count == WebhookAnswer.maxQuotedLocationBytes + 3)
        #expect(quoted.hasPrefix("http://a/xxx") && quoted.hasSuffix("x..."))
        let encoded = WebhookAnswer.quoted(String(repeating: "é", count: 1000))
        #expect(encoded.utf8.count <= WebhookAnswer.maxQuotedLocationBytes + 3)
        #expect(encoded.hasSuffix("%A9..."))
        #expect(WebhookAnswer.quoted(String(repeating: "x", count: WebhookAnswer.maxQuotedLocationBytes)).hasSuffix("x"))
    }
}
