import AppStore
import Foundation
import RevenueDot
import Testing

@Suite("revenuedot verify")
struct VerifyCommandTests {
    static let chain: TestChain = try! TestChain()
    static let rootPath: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("revenuedot-test-root-\(UUID()).pem").path
        try! chain.root.pem.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()
    static let nowMs = Int64(Date().timeIntervalSince1970 * 1000)

    static func sign(_ object: [String: Any], chain: TestChain = chain) throws -> String {
        try chain.sign(payload: JSONSerialization.data(withJSONObject: object))
    }

    static func notification(environment: String = "Sandbox", bundleId: String = "com.example.app") throws -> String {
        let transaction: [String: Any] = [
            "transactionId": "1", "originalTransactionId": "1", "bundleId": bundleId, "productId": "pro.monthly",
            "environment": environment, "signedDate": nowMs, "type": "Auto-Renewable Subscription",
        ]
        let renewal: [String: Any] = [
            "originalTransactionId": "1", "autoRenewStatus": 1, "environment": environment, "signedDate": nowMs,
        ]
        return try sign([
            "notificationType": "DID_RENEW", "notificationUUID": UUID().uuidString, "version": "2.0", "signedDate": nowMs,
            "futureField": "kept",
            "data": [
                "bundleId": bundleId, "appAppleId": 1234, "environment": environment,
                "signedTransactionInfo": try sign(transaction), "signedRenewalInfo": try sign(renewal),
            ],
        ])
    }

    func run(_ arguments: [String], input: String) throws -> VerifyCommand.Result {
        try VerifyCommand(arguments: ["--root-cert", Self.rootPath] + arguments).execute(input: Data(input.utf8))
    }

    func object(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func printsTheDecodedNotificationWithNestedObjectsDecoded() throws {
        let result = try run([], input: try Self.notification())
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let printed = try object(result.standardOutput)
        let data = try #require(printed["data"] as? [String: Any])
        #expect(data["signedTransactionInfo"] == nil)
        #expect(data["signedRenewalInfo"] == nil)
        #expect((data["transactionInfo"] as? [String: Any])?["productId"] as? String == "pro.monthly")
        #expect((data["renewalInfo"] as? [String: Any])?["autoRenewStatus"] as? Int == 1)
        #expect(printed["futureField"] as? String == "kept")
    }

    @Test func acceptsApplesRequestBody() throws {
        let body = "{\"signedPayload\": \"\(try Self.notification())\"}\n"
        let result = try run(["--bundle-id", "com.example.app", "--environment", "Sandbox"], input: body)
        #expect(result.status == 0)
        #expect(try object(result.standardOutput)["notificationType"] as? String == "DID_RENEW")
    }

    /// The server refuses a body naming `signedPayload` twice; so does `verify`, rather than
    /// checking one of the two (Foundation's decoder would check the first, the server's parser
    /// keep the last).
    @Test func refusesARequestBodyWithSignedPayloadTwice() throws {
        let body = "{\"signedPayload\": \"\(try Self.notification())\", \"signedPayload\": \"x.y.z\"}"
        let result = try run([], input: body)
        #expect(result.status == 1)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix("verification failed: verificationFailure: a JSON body must be"))
        #expect(result.standardError.contains("signedPayload"))
    }

    @Test func verifiesATransactionOnItsOwn() throws {
        let signed = try Self.sign([
            "transactionId": "9", "originalTransactionId": "9", "bundleId": "com.example.app", "environment": "Sandbox",
            "signedDate": Self.nowMs,
        ])
        let result = try run(["--bundle-id", "com.example.app"], input: signed)
        #expect(result.status == 0)
        #expect(try object(result.standardOutput)["transactionId"] as? String == "9")
    }

    @Test func failuresNameTheStatus() throws {
        let wrongApp = try run(["--bundle-id", "com.other"], input: try Self.notification())
        #expect(wrongApp.status == 1)
        #expect(wrongApp.standardOutput.isEmpty)
        #expect(wrongApp.standardError.hasPrefix("verification failed: invalidAppIdentifier: "))

        let wrongEnvironment = try run(["--environment", "Production", "--app-apple-id", "1234"], input: try Self.notification())
        #expect(wrongEnvironment.standardError.hasPrefix("verification failed: invalidEnvironment: "))

        let untrusted = try VerifyCommand(arguments: []).execute(input: Data(try Self.notification().utf8))
        #expect(untrusted.status == 1)
        #expect(untrusted.standardError.hasPrefix("verification failed: verificationFailure: "))

        let garbage = try run([], input: "garbage")
        #expect(garbage.standardError.hasPrefix("verification failed: verificationFailure: "))
    }

    @Test func linesPrintsOneObjectPerLineInOrderAndFailsIfAnyFails() throws {
        var lines: [String] = []
        for _ in 0..<20 { lines.append(try Self.notification()) }
        lines.insert("not a jws", at: 7)
        lines.insert("", at: 3)
        let result = try run(["--lines"], input: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 1)
        let printed = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(printed.count == 21)
        let failure = try object(printed[7])
        #expect(failure["error"] as? String == "verificationFailure")
        #expect(failure["line"] as? Int == 9)
        #expect(try object(printed[0])["notificationType"] as? String == "DID_RENEW")
        #expect(try object(printed[20])["notificationType"] as? String == "DID_RENEW")

        let clean = try run(["--lines"], input: lines.filter { $0 != "not a jws" }.joined(separator: "\n"))
        #expect(clean.status == 0)
        #expect(clean.standardOutput.split(separator: "\n").count == 20)
    }

    @Test func xcodeDataOnlyWithExplicitEnvironment() throws {
        let unsigned = try JSONSigner.unsignedTransaction()
        #expect(try run([], input: unsigned).status == 1)
        #expect(try run(["--environment", "Sandbox"], input: unsigned).status == 1)
        let accepted = try run(["--environment", "Xcode"], input: unsigned)
        #expect(accepted.status == 0, "\(accepted.standardError)")
    }

    /// A root in DER, as the configuration takes it; or the roots of a configuration's apps.
    @Test func rootsComeInDERAndFromAConfiguration() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("revenuedot-verify-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let der = directory.appendingPathComponent("root.der").path
        try Self.chain.root.der.write(to: URL(fileURLWithPath: der))
        let input = Data(try Self.notification().utf8)
        #expect(try VerifyCommand(arguments: ["--root-cert", der]).execute(input: input).status == 0)
        let config = directory.appendingPathComponent("revenuedot.json").path
        try #"{"apps": [{"id": "a", "bundleId": "b", "environments": ["Sandbox"], "rootCertificates": ["root.der"]}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try VerifyCommand(arguments: ["--config", config]).execute(input: input).status == 0)
        #expect(try VerifyCommand(arguments: []).execute(input: input).status == 1, "Apple's root alone does not verify it")
    }

    /// The input may be a pipe or a FIFO (`verify <(cat payload)`), not only a regular file.
    @Test func readsItsInputFromAFIFO() throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("revenuedot-verify-\(UUID()).fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let payload = try Self.notification()
        Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data(payload.utf8))
            try? handle.close()
        }.start()
        let result = try runCLI(["verify", "--root-cert", Self.rootPath, fifo])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("transactionInfo"))
    }

    @Test(arguments: [
        ["--environment", "Staging"], ["--app-apple-id", "abc"], ["--bogus"], ["a", "b"], ["--root-cert", "/nonexistent.pem"],
        ["--environment", "Production", "--bundle-id", "com.example.app"],
    ])
    func badArgumentsAreUsageErrors(arguments: [String]) {
        #expect(throws: UsageError.self) { _ = try VerifyCommand(arguments: arguments) }
    }
}

/// Xcode-style StoreKit test data: signed by a local key, with no Apple chain.
enum JSONSigner {
    static func unsignedTransaction() throws -> String {
        let key = try ECPrivateKey(generating: .p256)
        return try JWSSigner(key: key, keyId: "Apple_Xcode_Key").sign(
            payload: JSONSerialization.data(withJSONObject: [
                "transactionId": "0", "originalTransactionId": "0", "bundleId": "com.example.app", "environment": "Xcode",
                "signedDate": VerifyCommandTests.nowMs,
            ]))
    }
}
