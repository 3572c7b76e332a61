import AppStore
import Crypto
import Foundation
import JSON
import Testing

@testable import AppStoreServerAPI
@testable import AppStoreServerAPISimulator

/// The App Store Server API's tokens: what the client signs, and what the local API refuses, as
/// Apple does.
@Suite("App Store Server API tokens")
struct APITokenTests {
    @Test func theTokenCarriesWhatAppleChecks() throws {
        let token = try APIToken(
            p8: try APIFixture.key.pkcs8PEM(), keyId: "KEY123", issuerId: APIFixture.issuerId, bundleId: "com.example.app")
        let jwt = try token.make(now: Date(timeIntervalSince1970: 1_800_000_000))
        let parts = jwt.split(separator: ".").map(String.init)
        let header = try JSONValue(parsing: try #require(Base64.decode(parts[0], alphabet: .url)))
        let claims = try JSONValue(parsing: try #require(Base64.decode(parts[1], alphabet: .url)))
        #expect(header == .object(["alg": .string("ES256"), "kid": .string("KEY123"), "typ": .string("JWT")]))
        #expect(claims["iss"] == .string(APIFixture.issuerId))
        #expect(claims["iat"] == .integer(1_800_000_000))
        #expect(claims["exp"] == .integer(1_800_000_300))
        #expect(claims["aud"] == .string("appstoreconnect-v1"))
        #expect(claims["bid"] == .string("com.example.app"))
        #expect(APIFixture.key.verifiesES256(jwt))
    }

    /// Tokens Apple refuses, each for one reason, are refused by the local API too, for that
    /// reason: claims changed after signing fail on the signature, before the changed `bid` is read.
    @Test(arguments: [
        ("no bearer", "no bearer token"), ("tampered claims", "the signature is not the key's"),
        ("another signature", "the signature is not the key's"),
    ])
    func tokensAppleRefusesAreRefused(_ change: String, _ reason: String) throws {
        let check = try Self.tokenCheck()
        let jwt = try Self.token().make(now: Date())
        let header =
            switch change {
            case "no bearer": "Basic abc"
            case "tampered claims": "Bearer " + Self.replacingClaims(jwt) { $0["bid"] = .string("com.other") }
            default: "Bearer " + String(jwt.dropLast(4)) + "AAAA"
            }
        #expect(throws: TokenCheck.Refusal(description: reason), "\(change)") {
            _ = try check.check(authorization: header, now: Date())
        }
        #expect(try check.check(authorization: "Bearer \(jwt)", now: Date()) == APIFixture.bundleId)
    }

    @Test func expiredFutureAndOverlongTokensAreRefused() throws {
        let check = try Self.tokenCheck()
        let now = Date()
        let old = try Self.token().make(now: now.addingTimeInterval(-301))
        #expect(throws: TokenCheck.Refusal(description: "expired")) {
            _ = try check.check(authorization: "Bearer \(old)", now: now)
        }
        let future = try Self.token().make(now: now.addingTimeInterval(120))
        #expect(throws: TokenCheck.Refusal(description: "iat is in the future")) {
            _ = try check.check(authorization: "Bearer \(future)", now: now)
        }
        let signer = try JWSSigner(key: APIFixture.key, keyId: APIFixture.keyId, type: "JWT")
        let issued = Int64(now.timeIntervalSince1970)
        let overlong = try signer.sign(
            APIToken.Claims(iss: APIFixture.issuerId, iat: issued, exp: issued + 3601, bid: APIFixture.bundleId))
        #expect(throws: TokenCheck.Refusal(description: "exp is more than 60 minutes after iat (or now, without iat)")) {
            _ = try check.check(authorization: "Bearer \(overlong)", now: now)
        }
        let wrongAudience = try signer.sign(
            APIToken.Claims(
                iss: APIFixture.issuerId, iat: issued, exp: issued + 60, aud: "appstoreconnect-v2", bid: APIFixture.bundleId))
        #expect(throws: TokenCheck.Refusal(description: "aud is not appstoreconnect-v1")) {
            _ = try check.check(authorization: "Bearer \(wrongAudience)", now: now)
        }
        let wrongIssuer = try signer.sign(
            APIToken.Claims(iss: "someone", iat: issued, exp: issued + 60, bid: APIFixture.bundleId))
        #expect(throws: TokenCheck.Refusal(description: "iss is not the key's issuer")) {
            _ = try check.check(authorization: "Bearer \(wrongIssuer)", now: now)
        }
        struct NoIssuedAt: Encodable {
            var iss: String
            var exp: Int64
            var aud = "appstoreconnect-v1"
            var bid: String
        }
        // As Apple's Python library signs them: no iat, exp five minutes on. Taken; the hour
        // then counts from now.
        let noIat = try signer.sign(NoIssuedAt(iss: APIFixture.issuerId, exp: issued + 300, bid: APIFixture.bundleId))
        #expect(try check.check(authorization: "Bearer \(noIat)", now: now) == APIFixture.bundleId)
        let noIatOverlong = try signer.sign(
            NoIssuedAt(iss: APIFixture.issuerId, exp: issued + 3601, bid: APIFixture.bundleId))
        #expect(throws: TokenCheck.Refusal(description: "exp is more than 60 minutes after iat (or now, without iat)")) {
            _ = try check.check(authorization: "Bearer \(noIatOverlong)", now: now)
        }
        let otherKid = try JWSSigner(key: APIFixture.key, keyId: "OTHER", type: "JWT")
            .sign(APIToken.Claims(iss: APIFixture.issuerId, iat: issued, exp: issued + 60, bid: APIFixture.bundleId))
        #expect(throws: TokenCheck.Refusal(description: "unknown kid")) {
            _ = try check.check(authorization: "Bearer \(otherKid)", now: now)
        }
    }

    /// One In-App Purchase key serves every app of its team: listed once per app (as `simulate
    /// apple-api` lists each configured app's key), a token for any of them is taken; another
    /// key under the same id does not widen what the real one may act for.
    @Test func aKeyListedForTwoAppsActsForBoth() throws {
        let pem = try APIFixture.key.publicKeyPEM()
        let other = try ECPrivateKey(generating: .p256)
        let check = TokenCheck(keys: [
            try TokenCheck.Key(keyId: APIFixture.keyId, issuerId: APIFixture.issuerId, publicKeyPEM: pem, bundleIds: ["com.a"]),
            try TokenCheck.Key(keyId: APIFixture.keyId, issuerId: APIFixture.issuerId, publicKeyPEM: pem, bundleIds: ["com.b"]),
            try TokenCheck.Key(
                keyId: APIFixture.keyId, issuerId: APIFixture.issuerId, publicKeyPEM: try other.publicKeyPEM(),
                bundleIds: ["com.c"]),
        ])
        let now = Date()
        let issued = Int64(now.timeIntervalSince1970)
        func token(_ bid: String, key: ECPrivateKey = APIFixture.key) throws -> String {
            "Bearer "
                + (try JWSSigner(key: key, keyId: APIFixture.keyId, type: "JWT")
                    .sign(APIToken.Claims(iss: APIFixture.issuerId, iat: issued, exp: issued + 60, bid: bid)))
        }
        #expect(try check.check(authorization: try token("com.a"), now: now) == "com.a")
        #expect(try check.check(authorization: try token("com.b"), now: now) == "com.b")
        #expect(throws: TokenCheck.Refusal(description: "bid is not an app of the key's team")) {
            _ = try check.check(authorization: try token("com.c"), now: now)
        }
        #expect(try check.check(authorization: try token("com.c", key: other), now: now) == "com.c")
    }

    @Test func aClientWithTheWrongKeyIsAnsweredUnauthorized() throws {
        let fixture = try APIFixture(clientKey: try ECPrivateKey(generating: .p256))
        fixture.store.addTransaction(APIFixture.transaction("1"), bundleId: APIFixture.bundleId)
        // A fault injected is for a request Apple would serve: the refused one leaves it.
        fixture.store.inject(.status(500, code: nil, retryAfter: nil))
        do {
            _ = try fixture.client.transactionInfo("1")
            Issue.record("a token signed by another key was accepted")
        } catch {
            #expect(error.status == 401)
            #expect(error.attempts == 1)
        }
        #expect(fixture.store.state.withLock { $0.faults.count } == 1)
        #expect(fixture.store.requestCount("transaction-info") == 1)
        let late = try APIFixture(clock: { Date().addingTimeInterval(-3600) })
        late.store.addTransaction(APIFixture.transaction("1"), bundleId: APIFixture.bundleId)
        #expect(throws: AppStoreServerAPIError.self) { _ = try late.client.transactionInfo("1") }
    }

    // MARK: - Helpers

    static func token() throws -> APIToken {
        try APIToken(
            p8: try APIFixture.key.pkcs8PEM(), keyId: APIFixture.keyId, issuerId: APIFixture.issuerId,
            bundleId: APIFixture.bundleId)
    }

    static func tokenCheck() throws -> TokenCheck {
        TokenCheck(keys: [
            try TokenCheck.Key(
                keyId: APIFixture.keyId, issuerId: APIFixture.issuerId, publicKeyPEM: try APIFixture.key.publicKeyPEM(),
                bundleIds: [APIFixture.bundleId])
        ])
    }

    /// `jwt` with its claims changed and its signature kept (so no longer matching).
    static func replacingClaims(_ jwt: String, _ change: (inout JSONValue) -> Void) -> String {
        let parts = jwt.split(separator: ".").map(String.init)
        guard let data = Base64.decode(parts[1], alphabet: .url), var claims = try? JSONValue(parsing: data) else { return jwt }
        change(&claims)
        return [parts[0], Base64.encode(Data(claims.serialized().utf8), alphabet: .url), parts[2]].joined(separator: ".")
    }
}
