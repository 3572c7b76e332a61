import Foundation

/// The protected header of an App Store JWS: `alg` and the `x5c` certificate chain.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/jwsdecodedheader
struct JWSHeader: Decodable {
    /// What the `x5c` member holds, kept apart so each case maps to Apple's status.
    enum CertificateChain {
        case missing
        case notAnArray
        /// The entries; a non-string entry is nil.
        case entries([String?])
    }

    var alg: String?
    var x5c: CertificateChain

    private enum CodingKeys: String, CodingKey { case alg, x5c }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alg = try? container.decodeIfPresent(String.self, forKey: .alg)
        guard container.contains(.x5c), !(try container.decodeNil(forKey: .x5c)) else {
            x5c = .missing
            return
        }
        guard var array = try? container.nestedUnkeyedContainer(forKey: .x5c) else {
            x5c = .notAnArray
            return
        }
        var entries: [String?] = []
        while !array.isAtEnd {
            if let entry = try? array.decode(String.self) {
                entries.append(entry)
            } else {
                entries.append(nil)
                _ = try? array.decode(IgnoredValue.self)
            }
        }
        x5c = .entries(entries)
    }

    /// Consumes one JSON value of any type.
    private struct IgnoredValue: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}
