import Foundation
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// A body refused for its shape says what is wrong with it as JSON before the shape it must have.
@Suite struct BodyShapeTests {
    @Test(arguments: [
        (#"{"a": 1, "a": 2}"#, "a is given twice (the second at byte 9): SHAPE"),
        ("{", "the body is not JSON: SHAPE"),
        ("", "the body is not JSON: SHAPE"),
        (#"{"b": 1}"#, "SHAPE"),
    ])
    func saysWhatIsWrong(body: String, message: String) {
        #expect(BodyShape.refusal(Data(body.utf8), shape: "SHAPE") == message)
    }

    @Test func theSubscriberRoutesSayWhichMemberIsGivenTwice() throws {
        let fixture = try ServerFixture()
        let service = try RevenueDotService(config: try fixture.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        let bodies = [
            "/v1/subscribers/identify": #"{"app_user_id": "kate", "app_user_id": "k2", "new_app_user_id": "kim"}"#,
            "/v1/subscribers/kate/alias": #"{"new_app_user_id": "a", "new_app_user_id": "b"}"#,
            "/v1/subscribers/kate/attributes": #"{"attributes": {}, "attributes": {}}"#,
            "/v1/subscribers/kate/transactions": #"{"signedTransaction": "x", "signedTransaction": "y"}"#,
        ]
        for (path, body) in bodies {
            let response = try LoopbackConnection(port: service.port).request(
                "POST", path, headers: ["Authorization": "Bearer pk_test_public", "Content-Type": "application/json"],
                body: Data(body.utf8))
            #expect(response.status == 400, "\(path): \(response.text)")
            #expect(response.text.contains("is given twice (the second at byte"), "\(path): \(response.text)")
        }
    }
}
