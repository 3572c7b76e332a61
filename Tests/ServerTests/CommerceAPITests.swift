import AdvancedCommerce
import AppStore
import Crypto
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@testable import Storage
@testable import Tools

/// Advanced Commerce requests through the real server: validated against the customer's live
/// subscription, signed, stored as pending, completed by the transaction that carries their id.
@Suite("POST /v1/advanced-commerce/{appId}/requests")
struct CommerceAPITests {
    let key: ECPrivateKey
    let fixture: ServerFixture
    let service: RevenueDotService
    let connection: LoopbackConnection
    let user = "customer-1"

    init() throws {
        key = try ECPrivateKey(generating: .p256)
        let directory = TestDirectory("commerce-key")
        let keyPath = try directory.write("SubscriptionKey_KEY123.p8", try key.pkcs8PEM())
        fixture = try ServerFixture(
            demoOptions: #""inAppPurchaseKey": {"keyId": "KEY123", "issuerId": "issuer-1", "privateKeyPath": "\#(keyPath)"}"#)
        service = try fixture.startService()
        connection = try LoopbackConnection(port: service.port)
    }

    static let upgrade: JSONValue = try! JSONValue(parsing: Data(AppleExamplesJSON.upgrade.utf8))

    /// An Advanced Commerce transaction of subscription 12345 with `items` (and renewal info, in a notification).
    func transaction(
        id: String, items: [String], period: String, reference: String? = nil, ownership: String = "PURCHASED"
    ) -> JSONValue {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var info: [String: JSONValue] = [
            "items": .array(
                items.map { .object(["SKU": .string($0), "displayName": .string($0), "price": .integer(9990)]) }),
            "period": .string(period),
        ]
        info["requestReferenceId"] = reference.map(JSONValue.string)
        return .object([
            "transactionId": .string(id), "originalTransactionId": .string("12345"), "bundleId": .string("com.example.app"),
            "productId": .string("com.example.generic"), "purchaseDate": .integer(now - 1000),
            "originalPurchaseDate": .integer(now - 1000), "expiresDate": .integer(now + 30 * 86_400_000),
            "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string(ownership),
            "environment": .string("Sandbox"), "signedDate": .integer(now - 1000), "price": .integer(9990),
            "currency": .string("USD"), "advancedCommerceInfo": .object(info),
        ])
    }

    func post(_ body: JSONValue, key: String = "sk_test_secret", app: String = "demo") throws -> (Int, JSONValue) {
        let response = try connection.request(
            "POST", "/v1/advanced-commerce/\(app)/requests", headers: ["Authorization": "Bearer \(key)"],
            body: Data(body.serialized().utf8))
        return (response.status, (try? JSONValue(parsing: response.body)) ?? .null)
    }

    func requestStatus(_ reference: String) throws -> JSONValue {
        let response = try connection.request(
            "GET", "/v1/advanced-commerce/demo/requests/\(reference)", headers: ["Authorization": "Bearer sk_test_secret"])
        return (try? JSONValue(parsing: response.body)) ?? .null
    }

    func subscriber() throws -> JSONValue {
        let response = try connection.request(
            "GET", "/v1/subscribers/\(user)", headers: ["Authorization": "Bearer sk_test_secret"])
        return (try JSONValue(parsing: response.body))["subscriber"]?["subscriptions"]?["com.example.generic"] ?? .null
    }

    @Test func upgradeIsValidatedSignedAndCompletedByAppleTransaction() throws {
        defer { service.shutdown() }
        // The customer's live subscription: transaction 12345 with the Gold tier, monthly.
        let signed = try fixture.signer.sign(transaction(id: "12345", items: ["ANNES_GOLD_TIER_1M"], period: "P1M"))
        let linked = try connection.postTransaction(signed, for: user)
        #expect(linked.status == 200)
        #expect(try subscriber()["advanced_commerce"]?["items"]?.arrayValue?.first?["SKU"] == .string("ANNES_GOLD_TIER_1M"))
        #expect(try subscriber()["advanced_commerce"]?["period"] == .string("P1M"))

        // Apple's upgrade example, signed for that customer.
        let (code, answer) = try post(.object(["app_user_id": .string(user), "request": Self.upgrade]))
        #expect(code == 200, "\(answer)")
        let reference = answer["requestReferenceId"]?.stringValue ?? ""
        #expect(reference == "e2a88501-25ba-403a-9c46-d7b8eecc56ba")
        let token = try #require(answer["token"]?.stringValue)
        #expect(answer["advancedCommerceData"]?["signatureInfo"]?["token"] == .string(token))
        #expect(key.verifiesES256(token))
        let claims = try JSONValue(parsing: Base64.decode(token.split(separator: ".")[1], alphabet: .url) ?? Data())
        #expect(claims["bid"] == .string("com.example.app"))
        #expect(claims["iss"] == .string("issuer-1"))
        let request = try JSONValue(parsing: Base64.decode(claims["request"]?.stringValue ?? "", alphabet: .standard) ?? Data())
        #expect(request["changeItems"] == Self.upgrade["changeItems"])
        #expect(try requestStatus(reference)["status"] == .string("pending"))
        #expect(try requestStatus(reference.uppercased())["status"] == .string("pending"))

        // A retry whose answer was lost gets the same request signed again, dated now (Apple
        // dates a token's life from its iat); the same requestReferenceId for another request,
        // or for another customer, is Apple's RepeatedRequestReferenceIdError.
        let (retried, retry) = try post(.object(["app_user_id": .string(user), "request": Self.upgrade]))
        #expect(retried == 200, "\(retry)")
        let resigned = try #require(retry["token"]?.stringValue)
        #expect(resigned != token)
        #expect(key.verifiesES256(resigned))
        let again = try JSONValue(parsing: Base64.decode(resigned.split(separator: ".")[1], alphabet: .url) ?? Data())
        #expect(again["request"] == claims["request"])
        #expect(again["nonce"] != claims["nonce"])
        if case .integer(let first)? = claims["iat"], case .integer(let later)? = again["iat"] {
            #expect(later >= first)
        } else {
            Issue.record("a token without iat: \(claims), \(again)")
        }
        var other = Self.upgrade
        var items = Self.upgrade["changeItems"]?.arrayValue ?? []
        items[0]["price"] = .integer(89_990)
        other["changeItems"] = .array(items)
        // The reference in upper case is the same reference.
        var shouted = other
        shouted["requestInfo"]?["requestReferenceId"] = .string(reference.uppercased())
        for body in [
            JSONValue.object(["app_user_id": .string(user), "request": other]),
            .object(["app_user_id": .string("someone-else"), "request": Self.upgrade]),
            .object(["app_user_id": .string(user), "request": shouted]),
        ] {
            let (again, repeated) = try post(body)
            #expect(again == 422, "\(repeated)")
            #expect(repeated["errors"]?.arrayValue?.contains { $0["code"] == .string("RepeatedRequestReferenceIdError") } == true)
        }

        // Apple charges it: the new transaction carries the requestReferenceId and the new items.
        let upgraded = transaction(id: "12346", items: ["ANNES_PLATINUM_TIER_1Y"], period: "P1Y", reference: reference)
        let notification = try fixture.signer.sign(
            .object([
                "notificationType": .string("DID_CHANGE_RENEWAL_PREF"), "subtype": .string("UPGRADE"),
                "notificationUUID": .string(UUID().uuidString.lowercased()), "version": .string("2.0"),
                "signedDate": .integer(Int64(Date().timeIntervalSince1970 * 1000)),
                "data": .object([
                    "appAppleId": .integer(1234), "bundleId": .string("com.example.app"), "environment": .string("Sandbox"),
                    "signedTransactionInfo": .string(try fixture.signer.sign(upgraded)),
                ]),
            ]))
        #expect(try connection.postNotification(notification).status == 200)
        let completed = try requestStatus(reference)
        #expect(completed["status"] == .string("completed"))
        #expect(completed["transactionId"] == .string("12346"))
        #expect(try subscriber()["advanced_commerce"]?["items"]?.arrayValue?.first?["SKU"] == .string("ANNES_PLATINUM_TIER_1Y"))
        #expect(try subscriber()["advanced_commerce"]?["period"] == .string("P1Y"))
    }

    /// The API reads a request as `revenuedot commerce` does: a member given twice is refused.
    /// A retry sent while the first is still on its way (to this node or another, behind a load
    /// balancer) is the same request: both get 200, each a token signing that same request.
    @Test func aRetrySentAtOnceIsSignedForBoth() throws {
        defer { service.shutdown() }
        let signed = try fixture.signer.sign(transaction(id: "12345", items: ["ANNES_GOLD_TIER_1M"], period: "P1M"))
        #expect(try connection.postTransaction(signed, for: user).status == 200)
        let port = service.port
        for trial in 0..<20 {
            var request = Self.upgrade
            request["requestInfo"]?["requestReferenceId"] = .string(UUID().uuidString.lowercased())
            let body = Data(JSONValue.object(["app_user_id": .string(user), "request": request]).serialized().utf8)
            let answers = Locked<[(Int, String?)]>([])
            let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                // Both connect first, then send together.
                let connection = try? LoopbackConnection(port: port)
                arrived[index].signal()
                arrived[1 - index].wait()
                let response = try? connection?.request(
                    "POST", "/v1/advanced-commerce/demo/requests", headers: ["Authorization": "Bearer sk_test_secret"],
                    body: body)
                let token = response.flatMap { try? JSONValue(parsing: $0.body) }?["token"]?.stringValue
                answers.withLock { $0.append((response?.status ?? 0, token)) }
            }
            let both = answers.value
            #expect(both.map(\.0) == [200, 200], "trial \(trial)")
            let signedRequests = both.compactMap(\.1).map { token in
                (try? JSONValue(parsing: Base64.decode(token.split(separator: ".")[1], alphabet: .url) ?? Data()))?["request"]
            }
            #expect(
                signedRequests.count == 2 && signedRequests[0] != nil && signedRequests[0] == signedRequests[1], "trial \(trial)")
        }
    }

    @Test func aMemberGivenTwiceIsRefused() throws {
        defer { service.shutdown() }
        func post(_ raw: String) throws -> (Int, JSONValue) {
            let response = try connection.request(
                "POST", "/v1/advanced-commerce/demo/requests", headers: ["Authorization": "Bearer sk_test_secret"],
                body: Data(raw.utf8))
            return (response.status, (try? JSONValue(parsing: response.body)) ?? .null)
        }
        let item = #"{"SKU":"A","displayName":"A","description":"A","price":100}"#
        let (code, answer) = try post(
            #"{"app_user_id":"u","request":{"operation":"CREATE_ONE_TIME_CHARGE","version":"1","currency":"USD","#
                + #""requestInfo":{"requestReferenceId":"0b6a4d0e-3c5f-4a52-9a43-0d3a7c9bd1f3"},"taxCode":"C003-00-1","#
                + #""item":\#(item),"item":{"SKU":"X"}}}"#)
        #expect(code == 422, "\(answer)")
        #expect(answer["error"]?["code"] == .string("MalformedPayloadError"))
        #expect(answer["error"]?["field"] == .string("item"))
        #expect(try post(#"{"app_user_id":"u","app_user_id":"v","request":{}}"#).0 == 400)
        // A misspelled member is refused where it is, and nothing is recorded for it.
        let (misspelled, refusal) = try post(
            #"{"app_user_id":"u","request":{"operation":"CREATE_ONE_TIME_CHARGE","version":"1","currency":"USD","#
                + #""requestInfo":{"requestReferenceId":"0b6a4d0e-3c5f-4a52-9a43-0d3a7c9bd1f3"},"taxCode":"C003-00-1","#
                + #""item":\#(item),"storeFront":"USA"}}"#)
        #expect(misspelled == 422, "\(refusal)")
        #expect(refusal["error"]?["field"] == .string("storeFront"))
        let recorded = try connection.request(
            "GET", "/v1/advanced-commerce/demo/requests/0b6a4d0e-3c5f-4a52-9a43-0d3a7c9bd1f3",
            headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(recorded.status == 404)
        // Text that is not JSON is told as such, with where it stops being JSON.
        let (broken, brokenAnswer) = try post(#"{"app_user_id":"u","request":{"a":"\ud800b"}}"#)
        #expect(broken == 400)
        #expect(brokenAnswer["error"]?["message"]?.stringValue?.hasPrefix("the body is not JSON") == true, "\(brokenAnswer)")
    }

    @Test func invalidRequestsGetAppleErrorsAndNothingIsStored() throws {
        defer { service.shutdown() }
        let signed = try fixture.signer.sign(transaction(id: "12345", items: ["ANNES_GOLD_TIER_1M"], period: "P1M"))
        _ = try connection.postTransaction(signed, for: user)
        var wrong = Self.upgrade
        wrong["changeItems"] = .array([
            .object([
                "effective": .string("IMMEDIATELY"), "currentSKU": .string("NOT_OWNED"), "SKU": .string("ANNES_PLATINUM_TIER_1Y"),
                "price": .integer(99990), "displayName": .string("Platinum Tier"), "description": .string("Access"),
                "reason": .string("UPGRADE"),
            ])
        ])
        let (code, answer) = try post(.object(["app_user_id": .string(user), "request": wrong]))
        #expect(code == 422)
        let codes = answer["errors"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(codes.contains("ChangeItemNotFoundError"))
        #expect(
            answer["errors"]?.arrayValue?.contains {
                $0["appleErrorCode"] == .integer(4_000_146) && $0["field"] == .string("changeItems[0].currentSKU")
            } == true)
        let missing = try connection.request(
            "GET", "/v1/advanced-commerce/demo/requests/e2a88501-25ba-403a-9c46-d7b8eecc56ba",
            headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(missing.status == 404)

        // Someone else's subscription is not this customer's to modify.
        let (other, otherAnswer) = try post(.object(["app_user_id": .string("stranger"), "request": Self.upgrade]))
        #expect(other == 422)
        #expect(otherAnswer["error"]?["code"] == .string("TransactionIdNotFoundError"))

        #expect(try post(.object(["app_user_id": .string(user), "request": Self.upgrade]), key: "pk_test_public").0 == 401)
        #expect(try post(.object(["request": Self.upgrade])).0 == 400)
        #expect(
            try post(.object(["app_user_id": .string(user), "request": .object(["operation": .string("NOPE")])])).1["error"]?[
                "code"]
                == .string("InvalidOperationError"))
    }
}

extension CommerceAPITests {
    /// Renewal info whose items differ from the current ones shows as the scheduled change.
    @Test func aScheduledDowngradeShowsUnderTheSubscription() throws {
        defer { service.shutdown() }
        let current = transaction(id: "12345", items: ["ANNES_PLATINUM_TIER_1M"], period: "P1M")
        _ = try connection.postTransaction(try fixture.signer.sign(current), for: user)
        #expect(try subscriber()["advanced_commerce"]?["scheduled_changes"] == .null)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let renewal = JSONValue.object([
            "originalTransactionId": .string("12345"), "productId": .string("com.example.generic"),
            "autoRenewProductId": .string("com.example.generic"), "autoRenewStatus": .integer(1),
            "environment": .string("Sandbox"), "signedDate": .integer(now),
            "advancedCommerceInfo": .object([
                "consistencyToken": .string("1.2.3"), "period": .string("P1M"),
                "items": .array([
                    .object(["SKU": .string("ANNES_GOLD_TIER_1M"), "displayName": .string("Gold"), "price": .integer(7990)])
                ]),
            ]),
        ])
        let notification = try fixture.signer.sign(
            .object([
                "notificationType": .string("DID_CHANGE_RENEWAL_PREF"), "subtype": .string("DOWNGRADE"),
                "notificationUUID": .string(UUID().uuidString.lowercased()), "version": .string("2.0"),
                "signedDate": .integer(now),
                "data": .object([
                    "appAppleId": .integer(1234), "bundleId": .string("com.example.app"), "environment": .string("Sandbox"),
                    "signedTransactionInfo": .string(try fixture.signer.sign(current)),
                    "signedRenewalInfo": .string(try fixture.signer.sign(renewal)),
                ]),
            ]))
        #expect(try connection.postNotification(notification).status == 200)
        let commerce = try subscriber()["advanced_commerce"]
        #expect(commerce?["items"]?.arrayValue?.first?["SKU"] == .string("ANNES_PLATINUM_TIER_1M"))
        #expect(commerce?["scheduled_changes"]?["items"]?.arrayValue?.first?["SKU"] == .string("ANNES_GOLD_TIER_1M"))
        #expect(
            commerce?["scheduled_changes"]?["items"]?.arrayValue?.first?["price"]
                == .object(["amount": .number(7.99), "currency": .string("USD")]))
    }

    @Test func commandLineValidatesAndSigns() throws {
        let signed = try fixture.signer.sign(transaction(id: "12345", items: ["ANNES_GOLD_TIER_1M"], period: "P1M"))
        _ = try connection.postTransaction(signed, for: user)
        service.shutdown()
        let directory = TestDirectory("commerce-cli")
        let file = try directory.write("upgrade.json", AppleExamplesJSON.upgrade)
        let common = ["--app", "demo", "--customer", user, file, "--config", fixture.configPath]
        let valid = try runCLI(["commerce", "validate"] + common)
        #expect(valid.status == 0, "\(valid.output)")
        #expect(valid.output.contains("ANNES_PLATINUM_TIER_1Y"))
        let wrong = try runCLI([
            "commerce", "validate", "--app", "demo", "--customer", "stranger", file, "--config", fixture.configPath,
        ])
        #expect(wrong.status == 1)
        #expect(wrong.output.contains("TransactionIdNotFoundError (4040010)"))
        let sign = try runCLI(["commerce", "sign"] + common)
        #expect(sign.status == 0, "\(sign.output)")
        let token = try JSONValue(parsing: Data(sign.output.utf8))["token"]?.stringValue ?? ""
        #expect(key.verifiesES256(token))
        // Signing the same request again (an answer lost) signs it anew; another customer cannot.
        let again = try runCLI(["commerce", "sign"] + common)
        #expect(again.status == 0, "\(again.output)")
        let resigned = try JSONValue(parsing: Data(again.output.utf8))["token"]?.stringValue ?? ""
        #expect(resigned != token && key.verifiesES256(resigned))
        let stranger = ["--app", "demo", "--customer", "stranger", file, "--config", fixture.configPath]
        #expect(try runCLI(["commerce", "sign"] + stranger).status == 1)
        let nobody = try runCLI(["commerce", "sign", "--app", "demo", "--customer", "", file, "--config", fixture.configPath])
        #expect(nobody.status == 2)
        #expect(nobody.output.contains("--customer needs a value, not an empty one"))
        // The API's rule for app_user_id: too long, or a control character, is refused before signing.
        for (customer, reason) in [(String(repeating: "a", count: 257), "longer than 256 bytes"), ("a\tb", "control character")] {
            let refused = try runCLI([
                "commerce", "sign", "--app", "demo", "--customer", customer, file, "--config", fixture.configPath,
            ])
            #expect(refused.status == 2, "\(reason)")
            #expect(refused.output.contains(reason), "\(refused.output)")
        }
        let missing = try runCLI([
            "commerce", "validate", "--app", "demo", "--customer", user, directory.path("none.json"), "--config",
            fixture.configPath,
        ])
        #expect(missing.status == 1)
        #expect(missing.output == "revenuedot commerce: cannot read the request file \(directory.path("none.json"))\n")
    }
}

extension CommerceAPITests {
    /// An app that is not configured is 404, with any key or none, as on the notification route;
    /// a configured app without its secret key is 401.
    @Test func anUnknownAppIsNotFound() throws {
        defer { service.shutdown() }
        let body = Data(JSONValue.object(["app_user_id": .string(user), "request": Self.upgrade]).serialized().utf8)
        for headers in [["Authorization": "Bearer sk_test_secret"], [:]] {
            let created = try connection.request("POST", "/v1/advanced-commerce/nope/requests", headers: headers, body: body)
            #expect(created.status == 404, "\(headers)")
            #expect((try? JSONValue(parsing: created.body))?["error"]?["code"] == .string("unknown_app"))
            let shown = try connection.request("GET", "/v1/advanced-commerce/nope/requests/abc", headers: headers)
            #expect(shown.status == 404, "\(headers)")
        }
        let notification = try connection.postNotification(try fixture.signer.sign(.object([:])), app: "nope")
        #expect(notification.status == 404, "the notification route's answer")
        let otherApp = try connection.request(
            "POST", "/v1/advanced-commerce/sandbox-only/requests", headers: ["Authorization": "Bearer sk_test_secret"],
            body: body)
        #expect(otherApp.status == 401)
    }

    /// A request's status that storage cannot read is 503 (try again), never 404 (no such request).
    @Test func aFailedReadIsUnavailableNotUnknown() throws {
        defer { service.shutdown() }
        try SQLiteConnection(path: fixture.databasePath, role: .writer)
            .execute(script: "ALTER TABLE commerce_requests RENAME TO commerce_requests_moved")
        let shown = try connection.request(
            "GET", "/v1/advanced-commerce/demo/requests/0b6a4d0e-3c5f-4a52-9a43-0d3a7c9bd1f3",
            headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(shown.status == 503, "\(shown.text)")
        #expect((try? JSONValue(parsing: shown.body))?["error"]?["code"] == .string("storage_unavailable"))
    }
}

/// Apple's upgrade example (SubscriptionModifyInAppRequest example 1).
enum AppleExamplesJSON {
    static let upgrade = AppleExamples.modifyUpgradeWithPeriodChange
}
