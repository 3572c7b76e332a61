import AppStore
import AppStoreFixtures
import Foundation
import Testing

@Suite("SignedDataVerifier: app, environment and payload-type claims")
struct VerificationClaimsTests {
    let now = Fixtures.now

    @Test func wrongBundleIsInvalidAppIdentifier() throws {
        let signed = try Fixtures.sign(try Fixtures.notificationJSON(bundleId: "com.example.other"))
        expectRejected(.invalidAppIdentifier) { _ = try Fixtures.verifier().verifyNotification(signed, now: now) }
    }

    @Test func wrongEnvironmentIsInvalidEnvironment() throws {
        let signed = try Fixtures.sign(try Fixtures.notificationJSON(environment: "Sandbox"))
        expectRejected(.invalidEnvironment) {
            _ = try Fixtures.verifier(environments: [.production]).verifyNotification(signed, now: now)
        }
    }

    @Test func wrongAppAppleIdInProductionIsRejected() throws {
        let signed = try Fixtures.sign(try Fixtures.notificationJSON(environment: "Production", appAppleId: 999))
        expectRejected(.invalidAppIdentifier) {
            _ = try Fixtures.verifier(environments: [.production]).verifyNotification(signed, now: now)
        }
    }

    @Test func missingAppAppleIdInProductionIsRejected() throws {
        let signed = try Fixtures.sign(try Fixtures.notificationJSON(environment: "Production", appAppleId: nil))
        expectRejected(.invalidAppIdentifier) {
            _ = try Fixtures.verifier(environments: [.production]).verifyNotification(signed, now: now)
        }
    }

    @Test func wrongAppAppleIdInSandboxIsAccepted() throws {
        let signed = try Fixtures.sign(try Fixtures.notificationJSON(environment: "Sandbox", appAppleId: 999))
        let verified = try Fixtures.verifier(environments: [.sandbox]).verifyNotification(signed, now: now)
        #expect(verified.notification.payload.data?.appAppleId == 999)
        // Also when the app accepts Production too: the Sandbox payload's ID is not checked.
        _ = try Fixtures.verifier(environments: [.sandbox, .production]).verifyNotification(signed, now: now)
    }

    /// Apple's order: an Apple verifier set to Production checks the app Apple ID before the
    /// environment, whatever the payload claims (Apple's Python and Java tests: a Sandbox
    /// notification of another app Apple ID is `invalidAppIdentifier` there).
    @Test(
        arguments: [
            // accepted environments, payload environment, payload app Apple ID, expected status (nil: accepted)
            ([AppStoreEnvironment.production], "Sandbox", Int64(999), VerificationError.Status.invalidAppIdentifier),
            ([.production], "Sandbox", nil, .invalidAppIdentifier),
            ([.production], "Sandbox", Fixtures.appAppleId, .invalidEnvironment),
            ([.production], "Production", 999, .invalidAppIdentifier),
            ([.production, .sandbox], "Sandbox", 999, nil),
            ([.sandbox], "Production", 999, .invalidEnvironment),
            ([.sandbox], "Sandbox", 999, nil),
        ] as [([AppStoreEnvironment], String, Int64?, VerificationError.Status?)])
    func theAppAppleIdIsCheckedBeforeTheEnvironmentByAProductionVerifier(
        _ row: ([AppStoreEnvironment], String, Int64?, VerificationError.Status?)
    ) throws {
        let signed = try Fixtures.sign(try Fixtures.notificationJSON(environment: row.1, appAppleId: row.2))
        let verifier = try Fixtures.verifier(environments: Set(row.0))
        if let expected = row.3 {
            expectRejected(expected) { _ = try verifier.verifyNotification(signed, now: now) }
        } else {
            _ = try verifier.verifyNotification(signed, now: now)
        }
    }

    @Test func nestedTransactionOfAnotherAppIsRejected() throws {
        let json = try Fixtures.notificationJSON(transaction: Fixtures.transactionJSON(bundleId: "com.evil.app"))
        let detail = expectRejected(.invalidAppIdentifier) {
            _ = try Fixtures.verifier().verifyNotification(try Fixtures.sign(json), now: now)
        }
        #expect(detail?.hasPrefix("data.signedTransactionInfo") == true)
    }

    @Test func nestedRenewalInfoOfAnotherEnvironmentIsRejected() throws {
        let json = try Fixtures.notificationJSON(renewal: Fixtures.renewalJSON(environment: "Production"))
        expectRejected(.invalidEnvironment) {
            _ = try Fixtures.verifier(environments: [.sandbox]).verifyNotification(try Fixtures.sign(json), now: now)
        }
    }

    /// Both environments accepted, yet a nested object of the other one is refused: Apple's
    /// libraries verify it with the notification's environment's verifier. A signature-only
    /// verifier (what ingest keeps, held) takes it.
    @Test(
        arguments: [
            ("Sandbox", "Production", "Sandbox", "data.signedTransactionInfo: environment Production inside a Sandbox"),
            ("Sandbox", "Sandbox", "Production", "data.signedRenewalInfo: environment Production inside a Sandbox"),
            ("Production", "Sandbox", "Production", "data.signedTransactionInfo: environment Sandbox inside a Production"),
            ("Production", "Production", "Production", nil),
            ("Sandbox", "Sandbox", "Sandbox", nil),
        ] as [(String, String, String, String?)])
    func nestedObjectsClaimTheNotificationsEnvironment(
        notification: String, transaction: String, renewal: String, refused: String?
    ) throws {
        let json = try Fixtures.notificationJSON(
            environment: notification, transaction: Fixtures.transactionJSON(environment: transaction),
            renewal: Fixtures.renewalJSON(environment: renewal))
        let signed = try Fixtures.sign(json)
        if let refused {
            let detail = expectRejected(.invalidEnvironment) {
                _ = try Fixtures.verifier().verifyNotification(signed, now: now)
            }
            #expect(detail?.hasPrefix(refused) == true, "\(detail ?? "")")
        } else {
            _ = try Fixtures.verifier().verifyNotification(signed, now: now)
        }
        _ = try Fixtures.verifier(bundleId: nil, appAppleId: nil, environments: nil).verifyNotification(signed, now: now)
    }

    @Test func transactionChecksBundleAndEnvironment() throws {
        let verifier = try Fixtures.verifier(environments: [.sandbox])
        let good = try Fixtures.sign(Fixtures.transactionJSON())
        #expect(try verifier.verifyTransaction(good, now: now).payload.bundleId == Fixtures.bundleId)
        let otherBundle = try Fixtures.sign(Fixtures.transactionJSON(bundleId: "com.other"))
        expectRejected(.invalidAppIdentifier) { _ = try verifier.verifyTransaction(otherBundle, now: now) }
        let production = try Fixtures.sign(Fixtures.transactionJSON(environment: "Production"))
        expectRejected(.invalidEnvironment) { _ = try verifier.verifyTransaction(production, now: now) }
    }

    @Test func renewalInfoChecksEnvironmentOnly() throws {
        let verifier = try Fixtures.verifier(environments: [.sandbox])
        _ = try verifier.verifyRenewalInfo(try Fixtures.sign(Fixtures.renewalJSON()), now: now)
        let production = try Fixtures.sign(Fixtures.renewalJSON(environment: "Production"))
        expectRejected(.invalidEnvironment) { _ = try verifier.verifyRenewalInfo(production, now: now) }
    }

    @Test func appTransactionChecksAppAndReceiptType() throws {
        let base: [String: Any] = [
            "receiptType": "Production", "appAppleId": Fixtures.appAppleId, "bundleId": Fixtures.bundleId,
            "applicationVersion": "1.2", "receiptCreationDate": Fixtures.nowMs, "originalPurchaseDate": Fixtures.nowMs - 1000,
            "originalApplicationVersion": "1.0", "appTransactionId": "704289572311513457", "originalPlatform": "iOS",
        ]
        let verifier = try Fixtures.verifier(environments: [.production])
        let verified = try verifier.verifyAppTransaction(try Fixtures.sign(base), now: now)
        #expect(verified.payload.receiptType == .production)
        var wrongId = base
        wrongId["appAppleId"] = 1
        expectRejected(.invalidAppIdentifier) { _ = try verifier.verifyAppTransaction(try Fixtures.sign(wrongId), now: now) }
        var sandbox = base
        sandbox["receiptType"] = "Sandbox"
        expectRejected(.invalidEnvironment) { _ = try verifier.verifyAppTransaction(try Fixtures.sign(sandbox), now: now) }
    }

    @Test func summaryNotificationTakesItsAppFromSummary() throws {
        let json: [String: Any] = [
            "notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY", "notificationUUID": UUID().uuidString,
            "version": "2.0", "signedDate": Fixtures.nowMs,
            "summary": [
                "environment": "Sandbox", "appAppleId": Fixtures.appAppleId, "bundleId": Fixtures.bundleId,
                "productId": "pro.monthly", "requestIdentifier": UUID().uuidString, "storefrontCountryCodes": ["USA"],
                "succeededCount": 5, "failedCount": 1,
            ],
        ]
        let verified = try Fixtures.verifier().verifyNotification(try Fixtures.sign(json), now: now)
        #expect(verified.notification.payload.summary?.succeededCount == 5)
        var wrong = json
        wrong["summary"] = ["environment": "Sandbox", "bundleId": "com.other"]
        expectRejected(.invalidAppIdentifier) {
            _ = try Fixtures.verifier().verifyNotification(try Fixtures.sign(wrong), now: now)
        }
    }

    @Test func externalPurchaseTokenEnvironmentComesFromItsIdPrefix() throws {
        func notification(_ id: String) throws -> String {
            try Fixtures.sign([
                "notificationType": "EXTERNAL_PURCHASE_TOKEN", "subtype": "UNREPORTED", "notificationUUID": UUID().uuidString,
                "version": "2.0", "signedDate": Fixtures.nowMs,
                "externalPurchaseToken": [
                    "externalPurchaseId": id, "tokenCreationDate": Fixtures.nowMs, "appAppleId": Fixtures.appAppleId,
                    "bundleId": Fixtures.bundleId,
                ],
            ])
        }
        _ = try Fixtures.verifier(environments: [.sandbox]).verifyNotification(try notification("SANDBOX_abc"), now: now)
        expectRejected(.invalidEnvironment) {
            _ = try Fixtures.verifier(environments: [.sandbox]).verifyNotification(try notification("abc"), now: now)
        }
        _ = try Fixtures.verifier(environments: [.production]).verifyNotification(try notification("abc"), now: now)
    }

    @Test func productionWithoutAppAppleIdIsAConfigurationError() throws {
        #expect(throws: ConfigurationError.self) {
            _ = try Fixtures.verifier(appAppleId: nil, environments: [.production])
        }
        #expect(throws: ConfigurationError.self) {
            _ = try SignedDataVerifier(rootCertificates: [], policy: .signatureOnly)
        }
    }

    @Test func signatureOnlyPolicyAcceptsAnyAppButStillChecksTheChain() throws {
        let verifier = try SignedDataVerifier(rootCertificates: [Fixtures.chain.root], policy: .signatureOnly)
        let other = try Fixtures.sign(
            try Fixtures.notificationJSON(environment: "Production", bundleId: "com.any", appAppleId: 7))
        _ = try verifier.verifyNotification(other, now: now)
        let foreign = try Fixtures.signedNotification(chain: Fixtures.otherChain)
        expectRejected(.verificationFailure) { _ = try verifier.verifyNotification(foreign, now: now) }
    }
}
