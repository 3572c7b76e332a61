import AppStore
import Crypto
import Foundation
import JSON
import Testing

@testable import AdvancedCommerce

@Suite struct SigningTests {
    static let key = try! ECPrivateKey(generating: .p256)

    static func signer() throws -> InAppRequestSigner {
        try InAppRequestSigner(key: key, keyId: "ABC123DEFG", issuerId: "issuer-uuid", bundleId: "com.example.app")
    }

    /// The parts of a compact JWS, decoded.
    static func parts(_ token: String) throws -> (header: JSONValue, claims: JSONValue) {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(segments.count == 3)
        let header = try #require(Base64.decode(segments[0], alphabet: .url))
        let payload = try #require(Base64.decode(segments[1], alphabet: .url))
        return (try JSONValue(parsing: header), try JSONValue(parsing: payload))
    }

    static func roundTrip<Request: Codable & Equatable>(_ json: String, as type: Request.Type) throws {
        let request = try AppleExamples.decode(json, as: type)
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let token = try signer().sign(request, at: now)
        #expect(key.verifiesES256(token))
        #expect(!(try ECPrivateKey(generating: .p256)).verifiesES256(token), "another key does not verify it")
        let (header, claims) = try parts(token)
        #expect(header == .object(["alg": .string("ES256"), "kid": .string("ABC123DEFG"), "typ": .string("JWT")]))
        #expect(claims["iss"] == .string("issuer-uuid"))
        #expect(claims["iat"] == .integer(1_790_000_000))
        #expect(claims["aud"] == .string("advanced-commerce-api"))
        #expect(claims["bid"] == .string("com.example.app"))
        #expect(UUID(uuidString: claims["nonce"]?.stringValue ?? "") != nil)
        #expect(claims["exp"] == nil)
        let encoded = try #require(claims["request"]?.stringValue)
        let requestJSON = try #require(Base64.decode(encoded, alphabet: .standard))
        #expect(try JSONDecoder().decode(type, from: requestJSON) == request)
    }

    @Test(arguments: [
        AppleExamples.modifyUpgradeWithPeriodChange, AppleExamples.modifyAddItem, AppleExamples.modifyRemoveItem,
        AppleExamples.modifyDowngrade,
    ])
    func modifyExamplesComeBackSigned(json: String) throws {
        try Self.roundTrip(json, as: SubscriptionModifyInAppRequest.self)
    }

    @Test func otherRequestTypesComeBackSigned() throws {
        try Self.roundTrip(AppleExamples.oneTimeCharge, as: OneTimeChargeCreateRequest.self)
        try Self.roundTrip(AppleExamples.subscriptionCreate, as: SubscriptionCreateRequest.self)
        try Self.roundTrip(AppleExamples.subscriptionReactivate, as: SubscriptionReactivateInAppRequest.self)
    }

    @Test func everyTokenHasItsOwnNonce() throws {
        let request = try AppleExamples.decode(AppleExamples.modifyAddItem, as: SubscriptionModifyInAppRequest.self)
        let first = try Self.parts(try Self.signer().sign(request, at: Date())).claims["nonce"]
        let second = try Self.parts(try Self.signer().sign(request, at: Date())).claims["nonce"]
        #expect(first != second)
    }
}
