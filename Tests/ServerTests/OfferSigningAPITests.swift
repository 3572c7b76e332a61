import AppStore
import Crypto
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

/// `POST /v1/offers` as RevenueCat's SDK asks for a promotional offer's signature
/// (purchases-ios `PostOfferForSigningOperation`), read back as it decodes `PostOfferResponse`,
/// and checked as StoreKit checks it: against the public half of the app's In-App Purchase key.
@Suite("RevenueCat promotional offer signatures")
struct OfferSigningAPITests {
    static let key: ECPrivateKey = try! ECPrivateKey(generating: .p256)

    /// purchases-ios `PostOfferResponse`, decoded as the SDK decodes it.
    struct SDKOffers: Decodable {
        struct Offer: Decodable {
            struct SignatureData: Decodable {
                let nonce: UUID
                let signature: String
                let timestamp: Int
            }
            struct SignatureError: Decodable {
                let code: Int
                let message: String
            }
            let keyId: String
            let offerId: String
            let productId: String
            let signatureData: SignatureData?
            let signatureError: SignatureError?
        }
        let offers: [Offer]
    }

    /// The demo app, with the In-App Purchase key "OFFERKEY01" unless `withKey` is false.
    static func fixture(withKey: Bool = true) throws -> ServerFixture {
        let keys = TestDirectory("revenuedot-offer-keys")
        let path = try keys.write("SubscriptionKey.p8", try key.pkcs8PEM())
        let option = #""inAppPurchaseKey": {"keyId": "OFFERKEY01", "issuerId": "issuer-1", "privateKeyPath": "\#(path)"}"#
        return try ServerFixture(demoOptions: withKey ? option : "")
    }

    static func post(_ connection: LoopbackConnection, _ body: JSONValue, key: String = "pk_test_public") throws
        -> LoopbackResponse
    {
        try connection.request(
            "POST", "/v1/offers",
            headers: [
                "Authorization": "Bearer \(key)", "Content-Type": "application/json", "X-Platform": "iOS",
                "X-StoreKit-Version": "2",
            ],
            body: Data(body.serialized().utf8))
    }

    /// The SDK's body: one offer, the customer's first subscription transaction as `fetch_token`.
    static func request(_ user: String, token: String?, offer: String = "WINBACK50") -> JSONValue {
        .object([
            "app_user_id": .string(user), "fetch_token": token.map(JSONValue.string) ?? .null,
            "generate_offers": .array([
                .object([
                    "offer_id": .string(offer), "product_id": .string("pro.monthly"),
                    "subscription_group": .string("21000001"),
                ])
            ]),
        ])
    }

    static func decoded(_ answer: LoopbackResponse) throws -> SDKOffers.Offer {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try #require(try decoder.decode(SDKOffers.self, from: answer.body).offers.first)
    }

    /// Whether `offer`'s signature is StoreKit's for `username` (Apple's payload, built here).
    static func verifies(_ offer: SDKOffers.Offer, username: String) throws -> Bool {
        let data = try #require(offer.signatureData)
        let payload = [
            "com.example.app", "OFFERKEY01", offer.productId, offer.offerId, username,
            data.nonce.uuidString.lowercased(), String(data.timestamp),
        ].joined(separator: "\u{2063}")
        let der = try #require(Base64.decode(data.signature, alphabet: .standard))
        return try key.publicKey().verify(derSignature: Array(der), message: Array(payload.utf8))
    }

    @Test func theSDKGetsASignatureForThePurchasesAppAccountToken() throws {
        let fixture = try Self.fixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "7200000001")
        let before = Int(Date().timeIntervalSince1970 * 1000)

        // A UUID app user id is the purchase's appAccountToken: signed for it, lowercased.
        let uuidUser = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        let answer = try Self.post(connection, Self.request(uuidUser, token: signed))
        #expect(answer.status == 200, "\(answer.text)")
        let offer = try Self.decoded(answer)
        #expect(offer.keyId == "OFFERKEY01" && offer.offerId == "WINBACK50" && offer.productId == "pro.monthly")
        #expect(offer.signatureError == nil)
        #expect(try Self.verifies(offer, username: uuidUser.lowercased()))
        #expect(try !Self.verifies(offer, username: ""))
        let timestamp = try #require(offer.signatureData?.timestamp)
        #expect(timestamp >= before && timestamp <= Int(Date().timeIntervalSince1970 * 1000))

        // Any other id gives the purchase no token: signed for none.
        let anonymous = try Self.decoded(try Self.post(connection, Self.request("$RCAnonymousID:abc", token: signed)))
        #expect(try Self.verifies(anonymous, username: ""))
        #expect(anonymous.signatureData?.nonce != offer.signatureData?.nonce, "a fresh nonce per signature")
        // An app that sets its own token names it.
        var own = Self.request("rita", token: nil)
        if case .object(var members) = own {
            members["app_account_token"] = .string("5A1E0C2B-7D4F-4E8A-9B3C-1D2E3F4A5B6C")
            own = .object(members)
        }
        let named = try Self.decoded(try Self.post(connection, own, key: "sk_test_secret"))
        #expect(try Self.verifies(named, username: "5a1e0c2b-7d4f-4e8a-9b3c-1d2e3f4a5b6c"))

        // Signing stores nothing: no customer was made.
        for user in [uuidUser, "$RCAnonymousID:abc", "rita"] {
            let head = try connection.request(
                "HEAD", "/v1/subscribers/\(user.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                headers: ["Authorization": "Bearer sk_test_secret"])
            #expect(head.status == 404, "\(user)")
        }
    }

    /// Per offer, what stops a signature is RevenueCat's `signature_error`: no key (7234), no
    /// subscription in `fetch_token` (7232).
    @Test func offersThatCannotBeSignedSayWhy() throws {
        let fixture = try Self.fixture(withKey: false)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "7200000002")
        let unkeyed = try Self.decoded(try Self.post(connection, Self.request("rita", token: signed)))
        #expect(unkeyed.signatureData == nil && unkeyed.keyId == "")
        #expect(unkeyed.signatureError?.code == 7234, "\(unkeyed)")
        #expect(unkeyed.signatureError?.message.contains("inAppPurchaseKey") == true)

        let keyed = try Self.fixture()
        let other = try keyed.startService()
        defer { other.shutdown() }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let consumable = try keyed.signer.sign(
            .object([
                "transactionId": .string("7200000003"), "originalTransactionId": .string("7200000003"),
                "bundleId": .string("com.example.app"), "productId": .string("coins.100"), "purchaseDate": .integer(now),
                "originalPurchaseDate": .integer(now), "type": .string("Consumable"),
                "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"), "signedDate": .integer(now),
            ]))
        let ineligible = try Self.decoded(
            try Self.post(try LoopbackConnection(port: other.port), Self.request("rita", token: consumable)))
        #expect(ineligible.signatureData == nil && ineligible.keyId == "OFFERKEY01")
        #expect(ineligible.signatureError?.code == 7232, "\(ineligible)")
        // A subscription refunded is no subscriber's proof either.
        let refunded = try keyed.signer.sign(
            .object([
                "transactionId": .string("7200000004"), "originalTransactionId": .string("7200000004"),
                "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"), "purchaseDate": .integer(now),
                "originalPurchaseDate": .integer(now), "expiresDate": .integer(now + 86_400_000),
                "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
                "environment": .string("Sandbox"), "signedDate": .integer(now), "revocationDate": .integer(now),
                "revocationReason": .integer(0),
            ]))
        let revoked = try Self.decoded(
            try Self.post(try LoopbackConnection(port: other.port), Self.request("rita", token: refunded)))
        #expect(revoked.signatureError?.code == 7232, "\(revoked)")
    }

    /// Bodies that are not the SDK's are refused in RevenueCat's shape, one line saying why.
    @Test func badRequestsAreRefused() throws {
        let fixture = try Self.fixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let storeKit1 = Base64.encode([0x30, 0x82, 0x01, 0x00, 0x06, 0x09], alphabet: .standard)
        let offer = JSONValue.object(["offer_id": .string("o"), "product_id": .string("p")])
        let cases: [(JSONValue, Int, Int64, String)] = [
            (.object(["generate_offers": .array([offer])]), 400, 7220, "app_user_id is empty"),
            (.object(["app_user_id": .string("ivy")]), 400, 7226, "generate_offers"),
            (.object(["app_user_id": .string("ivy"), "generate_offers": .array([])]), 400, 7226, "generate_offers"),
            (
                .object(["app_user_id": .string("ivy"), "generate_offers": .array(Array(repeating: offer, count: 11))]), 400,
                7226, "at most 10"
            ),
            (
                .object(["app_user_id": .string("ivy"), "generate_offers": .array([.object(["offer_id": .string("o")])])]),
                400, 7226, "generate_offers[0].product_id"
            ),
            (
                .object(["app_user_id": .string("ivy"), "generate_offers": .array([offer]), "app_account_token": .string("x")]),
                400, 7226, "app_account_token"
            ),
            (Self.request("ivy", token: nil), 400, 7226, "fetch_token is missing"),
            (Self.request("ivy", token: storeKit1), 422, 7103, "storeKit2"),
            (Self.request("ivy", token: "not a token"), 400, 7226, "fetch_token"),
            (Self.request("ivy", token: "eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ.c2ln"), 401, 7103, "x5c"),
            (.array([]), 400, 7226, "offer request"),
        ]
        try expectRevenueCatRefusals(cases) { try Self.post(connection, $0) }
        let unauthorized = try Self.post(connection, Self.request("ivy", token: nil), key: "nope")
        #expect(unauthorized.status == 401)
        #expect(try JSONValue(parsing: unauthorized.body)["code"] == .integer(7225))
    }
}
