import AppStore
import Crypto
import Foundation
import Server
import Testing
import Tools

@Suite("revenuedot verify")
struct VerifyCommandTests {
    static let chain: TestChain = try! TestChain()
    static let rootPath: String = {
        let path = TestDirectory("revenuedot-test-root").path("root.pem")
        try! chain.root.pem.write(toFile: path, atomically: true, encoding: .utf8)
        // Whatever the umask: a root others can change is refused.
        try! FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
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
        let directory = TestDirectory("revenuedot-verify").url
        let der = directory.appendingPathComponent("root.der").path
        try Self.chain.root.der.write(to: URL(fileURLWithPath: der))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: der)
        let input = Data(try Self.notification().utf8)
        #expect(try VerifyCommand(arguments: ["--root-cert", der]).execute(input: input).status == 0)
        let config = directory.appendingPathComponent("revenuedot.json").path
        try #"{"apps": [{"id": "a", "bundleId": "b", "environments": ["Sandbox"], "rootCertificates": ["root.der"]}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try VerifyCommand(arguments: ["--config", config]).execute(input: input).status == 0)
        #expect(try VerifyCommand(arguments: []).execute(input: input).status == 1, "Apple's root alone does not verify it")
    }

    /// A root certificate that cannot be read is a file's problem (exit 1), as the input's is,
    /// not the command line's (exit 2).
    @Test func anUnreadableRootIsAFileProblem() throws {
        let missing = try runCLI(["verify", "--root-cert", "/nonexistent/root.pem", Self.rootPath])
        #expect(missing.status == 1, "\(missing.output)")
        #expect(missing.output == "revenuedot verify: --root-cert cannot read /nonexistent/root.pem: no such file\n")
    }

    /// A root certificate others can change is refused here too, as in a configuration.
    @Test func aRootOthersCanChangeIsRefused() throws {
        let path = TestDirectory("revenuedot-verify-shared").path("shared-root.pem")
        try Self.chain.root.pem.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
        let refused = try runCLI(["verify", "--root-cert", path, Self.rootPath])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(
            refused.output.hasPrefix("revenuedot verify: --root-cert \(path) can be changed by other users (mode 666)"),
            "\(refused.output)")
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

    /// An input without a payload verifies nothing, which is not a success.
    @Test(arguments: ["", "\n\n", "   \n"])
    func anInputWithoutAPayloadFails(input: String) throws {
        let result = try VerifyCommand(arguments: ["--lines"]).execute(input: Data(input.utf8))
        #expect(result.status == 1)
        #expect(result.standardError == "verification failed: the input holds no payload\n")
        #expect(result.standardOutput.isEmpty)
    }

    /// An endless input (`/dev/zero`) is read only up to the limit, then refused in one line.
    @Test func anEndlessInputIsRefusedAtTheLimit() throws {
        let result = try runCLI(["verify", "--root-cert", Self.rootPath, "--lines", "/dev/zero"])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.hasPrefix("revenuedot verify: /dev/zero holds more than 256 MiB: split it\n"), "\(result.output)")
    }

    @Test(arguments: [
        ["--environment", "Staging"], ["--app-apple-id", "abc"], ["--app-apple-id", "-1"], ["--app-apple-id", "0"], ["--bogus"],
        ["a", "b"],
        ["--environment", "Production", "--bundle-id", "com.example.app"], ["--type", "renewalInfo"], ["--type"],
    ])
    func badArgumentsAreUsageErrors(arguments: [String]) {
        #expect(throws: UsageError.self) { _ = try VerifyCommand(arguments: arguments) }
    }

    /// The missing option is named as the command spells it.
    @Test func aProductionCheckOfABundleNamesTheMissingOption() throws {
        let result = try runCLI(["verify", "--environment", "Production", "--bundle-id", "com.example.app", "x.jws"])
        #expect(result.status == 2)
        #expect(
            result.output.hasPrefix(
                "revenuedot verify: --app-apple-id N is required with --bundle-id and --environment Production"),
            "\(result.output)")
    }

    // MARK: - Apple's test vectors, as a user runs them

    /// Apple's published test data, kept with the AppStore tests (see its SOURCES file).
    static let appleVectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("AppStoreTests/Resources/AppleVectors")

    func runApple(_ file: String, _ arguments: [String]) throws -> VerifyCommand.Result {
        let root = Self.appleVectors.appendingPathComponent("certs/testCA.der").path
        let input = try Data(contentsOf: Self.appleVectors.appendingPathComponent(file))
        return try VerifyCommand(arguments: ["--root-cert", root] + arguments).execute(input: input)
    }

    /// Apple's minimal transaction and renewal info carry too few members to tell their type:
    /// `--type` says it, as Apple's callers do, and brings that type's checks.
    @Test func applesMinimalFilesVerifyWhenTheirTypeIsGiven() throws {
        let guessed = try runApple("mock_signed_data/transactionInfo", [])
        #expect(guessed.status == 1)
        #expect(guessed.standardError.contains("is not a notification, transaction, renewal info or app transaction"))

        let transaction = try runApple(
            "mock_signed_data/transactionInfo",
            ["--type", "transaction", "--bundle-id", "com.example", "--environment", "Sandbox"])
        #expect(transaction.status == 0, "\(transaction.standardError)")
        #expect(try object(transaction.standardOutput)["bundleId"] as? String == "com.example")
        let otherApp = try runApple(
            "mock_signed_data/transactionInfo", ["--type", "transaction", "--bundle-id", "com.example.x"])
        #expect(otherApp.standardError.hasPrefix("verification failed: invalidAppIdentifier: "))

        // Renewal info carries no bundle ID: only its environment is checked, as Apple does.
        let renewal = try runApple(
            "mock_signed_data/renewalInfo", ["--type", "renewal-info", "--bundle-id", "com.example", "--environment", "Sandbox"])
        #expect(renewal.status == 0, "\(renewal.standardError)")
        let production = try runApple(
            "mock_signed_data/renewalInfo", ["--type", "renewal-info", "--environment", "Production", "--app-apple-id", "1234"])
        #expect(production.standardError.hasPrefix("verification failed: invalidEnvironment: "))

        // Told a notification is a transaction, the transaction's checks apply to it.
        let mistyped = try runApple(
            "mock_signed_data/testNotification", ["--type", "transaction", "--bundle-id", "com.example"])
        #expect(mistyped.standardError.hasPrefix("verification failed: invalidAppIdentifier: bundleId missing"))
    }

    @Test func applesNotificationTestsThroughTheCommand() throws {
        let sandbox = try runApple(
            "mock_signed_data/testNotification", ["--bundle-id", "com.example", "--environment", "Sandbox"])
        #expect(sandbox.status == 0, "\(sandbox.standardError)")
        #expect(try object(sandbox.standardOutput)["notificationType"] as? String == "TEST")
        let otherAppleId = try runApple(
            "mock_signed_data/testNotification",
            ["--bundle-id", "com.example", "--app-apple-id", "1235", "--environment", "Production"])
        #expect(otherAppleId.standardError.hasPrefix("verification failed: invalidAppIdentifier: appAppleId 1234"))
        let production = try runApple(
            "mock_signed_data/testNotification",
            ["--bundle-id", "com.example", "--app-apple-id", "1234", "--environment", "Production"])
        #expect(production.standardError.hasPrefix("verification failed: invalidEnvironment: "))
    }

    /// Xcode's fractional milliseconds verify; the command prints the payload as it was signed
    /// (the models, and so the subscription state, hold them truncated: AppleVectorsTests).
    @Test func xcodesFractionalDatesVerify() throws {
        let result = try runApple(
            "xcode/xcode-signed-transaction",
            ["--type", "transaction", "--environment", "Xcode", "--bundle-id", "com.example.naturelab.backyardbirds.example"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains(#""purchaseDate": 1697679936049.7297"#), "\(result.standardOutput)")
        #expect(result.standardOutput.contains(#""signedDate": 1697679936056.485"#))
        let app = try runApple("xcode/xcode-signed-app-transaction", ["--environment", "Xcode"])
        #expect(app.status == 0, "\(app.standardError)")
        #expect(try object(app.standardOutput)["originalPurchaseDate"] as? Int == -62_135_769_600_000)
    }

    /// A request body of 1 MiB holding much besides `signedPayload` (here 260,000 nested arrays,
    /// which built as values took about 24 times its size) costs little more memory than a small
    /// one: the rest is checked and dropped. Measured as the peak resident size of `verify`.
    @Test func aBodyOfNestedArraysCostsAboutItsOwnSize() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("revenuedot-body-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let small = directory + "/small.json"
        let large = directory + "/large.json"
        try #"{"signedPayload": "x.y.z"}"#.write(toFile: small, atomically: true, encoding: .utf8)
        let arrays = Array(repeating: "[0]", count: 260_000).joined(separator: ",")
        try #"{"signedPayload": "x.y.z", "a": [\#(arrays)]}"#.write(toFile: large, atomically: true, encoding: .utf8)
        let measure =
            "import resource, subprocess, sys\n"
            + "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
            + "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        func peakKB(_ file: String) throws -> Int {
            let run = try runProcess("/usr/bin/python3", ["-c", measure, ChildServer.executable.path, "verify", file])
            return Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let (base, peak) = (try peakKB(small), try peakKB(large))
        #expect(base > 0 && peak > 0)
        #expect(peak - base < 8_000, "a 1 MiB body took \(peak - base) KB more than a small one")
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
