import AppStore
import Foundation
import FuzzSupport

/// `SignedDataVerifier` on payloads the fuzzer writes and this target signs with a test chain,
/// so the fuzzing reaches past the signature check into decoding, dates and claims.
///
/// The input, by its first byte:
/// - `R`: the rest is a JWS text, verified as it is, as every payload type;
/// - `H`: the rest is a header, 0x1E, a payload: signed as they are (`"@X5C"` in the header
///   stands for the test chain's `x5c` array), then verified as a transaction and as any type;
/// - anything else: a notification, then optionally 0x1E and a transaction, 0x1E and a renewal
///   info, 0x1E and an app transaction, each signed; `"@T"`, `"@R"` and `"@A"` in the
///   notification stand for the signed transaction, renewal info and app transaction.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzVerifier.test(UnsafeRawBufferPointer(fuzzInput: data, count: size))
    return 0
}

@main
enum FuzzVerifier {
    static func main() { FuzzDriver.main(fuzzOneInput) }

    /// A cache as in production: the chain is checked in full only when a date falls outside
    /// what is cached, which keeps most inputs to one P-256 check.
    static let verifier = try! FuzzChain.verifier(cache: ChainCache())
    static let x5c = "[" + FuzzChain.chain.x5c.map { "\"\($0)\"" }.joined(separator: ",") + "]"

    static func test(_ bytes: UnsafeRawBufferPointer) {
        switch bytes.first {
        case UInt8(ascii: "R"):
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            verifyEveryWay(text)
            _ = try? verifier.verifyTransaction(text, now: FuzzChain.now)
            _ = try? verifier.verifyRenewalInfo(text, now: FuzzChain.now)
            _ = try? verifier.verifyAppTransaction(text, now: FuzzChain.now)
        case UInt8(ascii: "H"):
            let records = UnsafeRawBufferPointer(rebasing: bytes.dropFirst()).records()
            guard records.count == 2 else { return }
            let header = String(decoding: records[0], as: UTF8.self).replacingOccurrences(of: "\"@X5C\"", with: x5c)
            let signed = FuzzChain.sign(records[1], header: Data(header.utf8))
            _ = try? verifier.verifyTransaction(signed, now: FuzzChain.now)
            verifyEveryWay(signed)
        default:
            let records = bytes.records()
            let nested = records.dropFirst().prefix(3).map { FuzzChain.sign($0) }
            var notification = String(decoding: records[0], as: UTF8.self)
            for (placeholder, signed) in zip(["\"@T\"", "\"@R\"", "\"@A\""], nested) {
                notification = notification.replacingOccurrences(of: placeholder, with: "\"\(signed)\"")
            }
            verifyEveryWay(FuzzChain.sign(Data(notification.utf8)))
            for (index, signed) in nested.enumerated() {
                switch index {
                case 0: _ = try? verifier.verifyTransaction(signed, now: FuzzChain.now)
                case 1: _ = try? verifier.verifyRenewalInfo(signed, now: FuzzChain.now)
                default: _ = try? verifier.verifyAppTransaction(signed, now: FuzzChain.now)
                }
            }
        }
    }

    /// Verified as a notification and as whatever it is; what verifies must read unverified too.
    static func verifyEveryWay(_ text: String) {
        _ = try? verifier.verifyNotification(text, now: FuzzChain.now)
        if let any = try? verifier.verifyAny(text, now: FuzzChain.now) {
            _ = try? any.decodedJSON()
            precondition((try? UnverifiedPayload.json(of: text)) != nil, "verified, but not readable unverified")
        }
    }
}
