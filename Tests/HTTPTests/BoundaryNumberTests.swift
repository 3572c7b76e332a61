import Foundation
import HTTP
import LoopbackClient
import Testing

/// Every number a client writes that the server reads: lengths at and past 64 bits, signs,
/// fractions, exponents and words are refused with a 4xx (or, for a chunk size libmicrohttpd
/// takes mid-body, the connection is cut off), and nothing traps.
@Suite("Numbers from clients")
struct BoundaryNumberTests {
    enum Outcome: Sendable, Equatable {
        /// Answered with this status; `json` when RevenueDot wrote the answer (libmicrohttpd's
        /// own are HTML).
        case answered(Int, json: Bool)
        /// Closed without an answer: a body refused mid-way that goes on past the limit.
        case cutOff
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var head: String
        var outcome: Outcome
        var testDescription: String { head.split(separator: "\r\n").joined(separator: " | ") }
    }

    private static func post(_ headers: String) -> String {
        "POST /v1/upload HTTP/1.1\r\nHost: t\r\n\(headers)\r\n"
    }

    private static func chunk(_ size: String) -> String {
        post("Transfer-Encoding: chunked\r\n") + "\(size)\r\n"
    }

    /// A Content-Length too large for any limit is answered 413 from the head, before any of the
    /// body is sent, whatever its number of digits: RevenueDot's answer up to 2^64 - 1,
    /// libmicrohttpd's from 2^64, which it cannot hold.
    @Test(arguments: [
        Case(head: post("Content-Length: 9223372036854775807\r\n"), outcome: .answered(413, json: true)),
        Case(head: post("Content-Length: 9223372036854775808\r\n"), outcome: .answered(413, json: true)),
        Case(head: post("Content-Length: 18446744073709551615\r\n"), outcome: .answered(413, json: true)),
        Case(
            head: post("Content-Length: 9223372036854775808\r\nContent-Length: 9223372036854775808\r\n"),
            outcome: .answered(413, json: true)),
        Case(head: post("Content-Length: 18446744073709551616\r\n"), outcome: .answered(413, json: false)),
        Case(head: post("Content-Length: 99999999999999999999\r\n"), outcome: .answered(413, json: false)),
    ])
    func contentLengthPastAnyLimitIsAnEarly413(_ sent: Case) throws {
        try check(sent)
    }

    /// Content-Lengths and chunk sizes that are not lengths, or lengths past 64 bits.
    @Test(arguments: [
        Case(head: post("Content-Length: -1\r\n"), outcome: .answered(400, json: false)),
        Case(head: post("Content-Length: -9223372036854775808\r\n"), outcome: .answered(400, json: false)),
        Case(head: post("Content-Length: +5\r\n"), outcome: .answered(400, json: false)),
        Case(head: post("Content-Length: 1e19\r\n"), outcome: .answered(400, json: false)),
        Case(head: post("Content-Length: 1.5\r\n"), outcome: .answered(400, json: false)),
        Case(head: post("Content-Length: NaN\r\n"), outcome: .answered(400, json: false)),
        Case(head: post("Content-Length: 0x10\r\n"), outcome: .answered(400, json: false)),
        Case(head: post("Content-Length: \r\n"), outcome: .answered(400, json: false)),
        // libmicrohttpd reads the first; the second, which it ignores, must agree with it.
        Case(head: post("Content-Length: 5\r\nContent-Length: -1\r\n"), outcome: .answered(400, json: true)),
        Case(head: post("Content-Length: 5\r\nContent-Length: 1e19\r\n"), outcome: .answered(400, json: true)),
        Case(head: chunk("-1"), outcome: .answered(400, json: false)),
        Case(head: chunk("NaN"), outcome: .answered(400, json: false)),
        Case(head: chunk("1.5"), outcome: .answered(400, json: false)),
        Case(head: chunk("10000000000000000"), outcome: .answered(413, json: false)),
        Case(head: chunk("ffffffffffffffffffff"), outcome: .answered(413, json: false)),
        // Sizes that fit 64 bits: libmicrohttpd takes no answer mid-body, so the body, dropped
        // past the limit, is cut off another 64 KiB on.
        Case(head: chunk("8000000000000000") + String(repeating: "a", count: 80 << 10), outcome: .cutOff),
        Case(head: chunk("ffffffffffffffff") + String(repeating: "a", count: 80 << 10), outcome: .cutOff),
    ])
    func badLengthsAreRefused(_ sent: Case) throws {
        try check(sent)
    }

    /// Numbers the server does not read (a Host port, query values) reach the handler as text.
    @Test(arguments: [
        "GET /health?limit=9223372036854775808&after=-1&n=1e19&x=NaN&y=1.5 HTTP/1.1\r\nHost: t\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: t:99999999999999999999\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: [::1]:-1\r\n\r\n",
    ])
    func numbersTheServerDoesNotReadAreServed(head: String) throws {
        try check(Case(head: head, outcome: .answered(200, json: false)))
    }

    private func check(_ sent: Case) throws {
        let server = try startServer(maxBodyBytes: 4096) { router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        var outcome: Outcome?
        let elapsed = seconds {
            do {
                try client.sendRaw(Data(sent.head.utf8))
            } catch let error as LoopbackClientError where error.code == .sendFailed {
                // Closed while the body was going out; what came before is still read.
            } catch {
                Issue.record(error)
            }
            if let response = try? client.readResponse() {
                outcome = .answered(response.status, json: errorCode(response) != nil)
            } else {
                outcome = .cutOff
            }
        }
        #expect(outcome == sent.outcome)
        #expect(elapsed < 2)
        #expect(try LoopbackConnection(port: server.port).request("GET", "/health").text == "ok")
    }
}
