import Foundation
import HTTP
import Testing

@Suite("HTTPResponse")
struct HTTPResponseTests {
    @Test(arguments: [
        ("not_found", "No route for /x."),
        ("bad \"quote\"", "line\nbreak\ttab \\ slash \u{01} control, é and 😀"),
        ("", ""),
    ])
    func errorBodyIsTheSharedJSONShape(code: String, message: String) throws {
        let response = HTTPResponse.error(status: 404, code: code, message: message)
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(object.keys.sorted() == ["error"])
        let error = try #require(object["error"] as? [String: String])
        #expect(error == ["code": code, "message": message])
    }

    @Test func textAndJSONSetTheirContentType() {
        let text = HTTPResponse.text("hi", status: 201)
        #expect(text.status == 201)
        #expect(text.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(text.body == Data("hi".utf8))
        let json = HTTPResponse.json(Data("{}".utf8))
        #expect(json.status == 200)
        #expect(json.headers["Content-Type"] == "application/json")
    }

    @Test func requestHeaderLookupIgnoresCase() {
        let request = HTTPRequest(method: "GET", path: "/", headers: ["X-Signature": "abc"])
        #expect(request.header("x-signature") == "abc")
        #expect(request.header("X-SIGNATURE") == "abc")
        #expect(request.headers["x-signature"] == "abc")
        #expect(request.header("missing") == nil)
    }
}
