import Crypto
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

extension CommerceAPITests {
    /// A reference in upper case is signed as the app gave it (Apple echoes it in the
    /// transaction, which the app may match), and kept under its lower case.
    @Test func aReferenceIsSignedAsGiven() throws {
        defer { service.shutdown() }
        let signed = try fixture.signer.sign(transaction(id: "12345", items: ["ANNES_GOLD_TIER_1M"], period: "P1M"))
        #expect(try connection.postTransaction(signed, for: user).status == 200)
        let shouted = "E2A88501-25BA-403A-9C46-D7B8EECC56BA"
        var upgrade = Self.upgrade
        upgrade["requestInfo"]?["requestReferenceId"] = .string(shouted)
        let (code, answer) = try post(.object(["app_user_id": .string(user), "request": upgrade]))
        #expect(code == 200, "\(answer)")
        let claims = try JSONValue(
            parsing: Base64.decode(answer["token"]?.stringValue?.split(separator: ".")[1] ?? "", alphabet: .url) ?? Data())
        let request = try JSONValue(parsing: Base64.decode(claims["request"]?.stringValue ?? "", alphabet: .standard) ?? Data())
        #expect(request["requestInfo"]?["requestReferenceId"] == .string(shouted))
        #expect(try requestStatus(shouted.lowercased())["status"] == .string("pending"))
    }
}
