import AppStore
import AppStoreFixtures
import Crypto
import Foundation
import JSON
import Testing

/// Boundary values in every numeric field of every signed model: each is refused as a
/// verification failure or accepted as a plausible number, and none traps.
@Suite("Payload numbers at their boundaries")
struct PayloadNumberBoundaryTests {
    /// JSON texts put in place of a number: the ends of 64 bits, just past them, fractions,
    /// exponents, and strings that look like numbers.
    static let boundaries = [
        "-9223372036854775808", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "-1", "0", "1", "-0", "1e19", "-1e19", "1.5", "1698148900000.5", "1698148900123.9", "1e308",
        "-1e308",
        "2147483648", "-2147483649", "4102444800001", "1199145599999", #""NaN""#, #""1698148900000""#, "null",
    ]

    /// What a date member accepts among `boundaries`.
    static let acceptedAsDates: Set = ["null", "1698148900000.5", "1698148900123.9"]

    /// Each model's full fixture, how to verify it, and the member that dates its chain check.
    static let models:
        [(name: String, fixture: String, dateMember: String, verify: @Sendable (String) throws -> [PayloadNumber])] = [
            ("notification", Fixture.notification, "signedDate", { try verify($0, as: ResponseBodyV2DecodedPayload.self) }),
            ("summary", Fixture.summaryNotification, "signedDate", { try verify($0, as: ResponseBodyV2DecodedPayload.self) }),
            ("token", Fixture.tokenNotification, "signedDate", { try verify($0, as: ResponseBodyV2DecodedPayload.self) }),
            ("transaction", Fixture.transaction, "signedDate", { try verify($0, as: JWSTransactionDecodedPayload.self) }),
            ("renewal info", Fixture.renewalInfo, "signedDate", { try verify($0, as: JWSRenewalInfoDecodedPayload.self) }),
            ("app transaction", Fixture.appTransaction, "receiptCreationDate", { try verify($0, as: AppTransaction.self) }),
        ]

    static func verify<P: SignedPayload>(_ json: String, as type: P.Type) throws -> [PayloadNumber] {
        let verifier = try Fixtures.verifier(bundleId: nil, appAppleId: nil, environments: nil)
        let signed = try Fixtures.chain.sign(payload: Data(json.utf8))
        return try verifier.verify(signed, as: type, now: Fixtures.now).payload.numbers
    }

    @Test(arguments: 0..<models.count)
    func everyNumericMemberAtEveryBoundary(model index: Int) throws {
        let model = Self.models[index]
        var fixture = try JSONValue(parsing: Data(model.fixture.utf8))
        // Dated now, inside the test chain's validity, so only the number under test can fail.
        fixture[model.dateMember] = .integer(Fixtures.nowMs)
        #expect(try model.verify(fixture.serialized()).allSatisfy { $0.problem == nil })

        let paths = NumericLeaves.paths(in: fixture)
        #expect(paths.count >= 3, "\(model.name) has numeric members to test")
        for path in paths {
            for boundary in Self.boundaries {
                let text = NumericLeaves.replacing(path, in: fixture, withJSONText: boundary)
                do {
                    let numbers = try model.verify(text)
                    for number in numbers {
                        #expect(number.problem == nil, "\(model.name) \(path) = \(boundary) accepted \(number)")
                    }
                    // null is an absent member, which every date may be; a plausible date with a
                    // fraction of a millisecond (as Xcode writes) is truncated to whole ones.
                    #expect(
                        !path.last!.hasSuffix("Date") || Self.acceptedAsDates.contains(boundary),
                        "\(model.name) \(path) = \(boundary) accepted as a date")
                    if path.last!.hasSuffix("Date"), boundary == "1698148900123.9" {
                        #expect(
                            numbers.contains { $0.path.hasSuffix(path.last!) && $0.value == 1_698_148_900_123 },
                            "\(model.name) \(path) = \(boundary) not truncated to 1698148900123")
                    }
                } catch let error as VerificationError {
                    #expect(error.status == .verificationFailure, "\(model.name) \(path) = \(boundary): \(error)")
                }
            }
        }
    }

    @Test func theProbeThatTrappedIsAVerificationFailure() throws {
        // Any three certificates, a zero signature, and Int64.min as signedDate (found by a probe).
        let header = try JSONSerialization.data(
            withJSONObject: [
                "alg": "ES256",
                "x5c": [Fixtures.chain.leaf, Fixtures.chain.intermediate, Fixtures.chain.root].map {
                    $0.der.base64EncodedString()
                },
            ])
        let payload = #"{"notificationType":"TEST","notificationUUID":"x","signedDate":-9223372036854775808}"#
        let jws = [header, Data(payload.utf8), Data(count: 64)].map { Base64.encode($0, alphabet: .url) }
            .joined(separator: ".")
        // In Apple's order (no chain cache) the payload is read before the signature is checked.
        let detail = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier(cache: nil).verifyNotification(jws, now: Fixtures.now)
        }
        #expect(detail?.contains("signedDate -9223372036854775808 is not a date App Store sends") == true)
        // With one, the signature of a chain good at some time is checked before the payload is read.
        let cached = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier().verifyNotification(jws, now: Fixtures.now)
        }
        #expect(cached?.contains("the ES256 signature does not match") == true)
    }

    @Test func unsignedXcodeDataIsCheckedToo() throws {
        var transaction = Fixtures.transactionJSON(environment: "Xcode")
        transaction["expiresDate"] = Int64.min
        let key = try ECPrivateKey(generating: .p256)
        let unsigned = try JWSSigner(key: key, keyId: "Apple_Xcode_Key").sign(
            payload: JSONSerialization.data(withJSONObject: transaction))
        let verifier = try Fixtures.verifier(environments: [.xcode])
        let detail = expectRejected(.verificationFailure) { _ = try verifier.verifyTransaction(unsigned, now: Fixtures.now) }
        #expect(detail?.hasPrefix("expiresDate -9223372036854775808") == true)
    }

    @Test(arguments: [
        (Int64.min, false), (-1, false), (0, false), (1_199_145_599_999, false), (1_199_145_600_000, true),
        (1_793_491_200_000, true), (4_102_444_800_000, true), (4_102_444_800_001, false), (Int64.max, false),
    ])
    func datesFrom2008To2100(milliseconds: Int64, plausible: Bool) {
        #expect((PayloadNumber("d", milliseconds, .date).problem == nil) == plausible)
    }
}

/// The numeric members of a JSON document, and the document with one of them replaced.
enum NumericLeaves {
    /// Paths of every integer or number, as keys and array indexes in text (`items`, `0`, `price`).
    static func paths(in value: JSONValue, under prefix: [String] = []) -> [[String]] {
        switch value {
        case .integer, .number: return [prefix]
        case .object(let members):
            return members.keys.sorted().flatMap { paths(in: members[$0]!, under: prefix + [$0]) }
        case .array(let elements):
            return elements.indices.flatMap { paths(in: elements[$0], under: prefix + [String($0)]) }
        case .null, .bool, .string: return []
        }
    }

    /// The document's text with the member at `path` written as `text`, verbatim.
    static func replacing(_ path: [String], in document: JSONValue, withJSONText text: String) -> String {
        let marker = "\u{1}boundary\u{1}"
        return set(path[...], in: document, to: .string(marker)).serialized()
            .replacingOccurrences(of: JSONValue.string(marker).serialized(), with: text)
    }

    private static func set(_ path: ArraySlice<String>, in value: JSONValue, to new: JSONValue) -> JSONValue {
        guard let first = path.first else { return new }
        switch value {
        case .object(var members):
            members[first] = set(path.dropFirst(), in: members[first] ?? .null, to: new)
            return .object(members)
        case .array(var elements):
            let index = Int(first)!
            elements[index] = set(path.dropFirst(), in: elements[index], to: new)
            return .array(elements)
        default: return value
        }
    }
}
