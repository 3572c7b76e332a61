import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

extension CommerceAPITests {
    /// Beside the running server that has the SQLite database, `commerce sign` has that server
    /// sign and record the request (one process writes the file); `validate` reads beside it.
    /// Apple's errors read as without a server.
    @Test func theCommandSignsThroughTheRunningServer() throws {
        defer { service.shutdown() }
        let signed = try fixture.signer.sign(transaction(id: "12345", items: ["ANNES_GOLD_TIER_1M"], period: "P1M"))
        #expect(try connection.postTransaction(signed, for: user).status == 200)
        let file = try TestDirectory("commerce-beside").write("upgrade.json", AppleExamplesJSON.upgrade)
        func run(_ verb: String, _ customer: String) throws -> (status: Int32, output: String) {
            try runCLI(["commerce", verb, "--app", "demo", "--customer", customer, file, "--config", fixture.configPath])
        }
        let validated = try run("validate", user)
        #expect(validated.status == 0, "\(validated.output)")
        #expect(try requestStatus("e2a88501-25ba-403a-9c46-d7b8eecc56ba")["status"] == nil)
        let sign = try run("sign", user)
        #expect(sign.status == 0, "\(sign.output)")
        let answer = try JSONValue(parsing: Data(sign.output.utf8))
        #expect(key.verifiesES256(answer["token"]?.stringValue ?? ""))
        #expect(answer["advancedCommerceData"]?["signatureInfo"]?["token"] == answer["token"])
        #expect(try requestStatus("e2a88501-25ba-403a-9c46-d7b8eecc56ba")["status"] == .string("pending"))
        let stranger = try run("sign", "stranger")
        #expect(stranger.status == 1, "\(stranger.output)")
        #expect(
            stranger.output.contains(
                "\nTransactionIdNotFoundError (4040010) at transactionId: Transaction id not found. It is not a "
                    + "transaction of this customer's subscriptions.\n"), "\(stranger.output)")
    }

    /// Signing uses the app's In-App Purchase key: a configuration others can read is refused
    /// as serve, import and the apple commands refuse it, before anything is read or signed.
    @Test func theCommandRefusesAConfigurationOthersCanRead() throws {
        service.shutdown()
        let file = try TestDirectory("commerce-modes").write("upgrade.json", AppleExamplesJSON.upgrade)
        _ = chmod(fixture.configPath, 0o644)
        for verb in ["validate", "sign"] {
            let refused = try runCLI([
                "commerce", verb, "--app", "demo", "--customer", user, file, "--config", fixture.configPath,
            ])
            #expect(refused.status != 0, "\(refused.output)")
            #expect(refused.output.contains("is readable by other users (mode 644)"), "\(refused.output)")
        }
    }
}
