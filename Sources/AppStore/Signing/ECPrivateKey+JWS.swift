import Crypto
import Foundation

extension ECPrivateKey {
    /// Whether `jws` (compact serialization, ES256) carries a valid signature by this key's public
    /// half: what an app backend or a test checks about a token RevenueDot signed with its key.
    public func verifiesES256(_ jws: String) -> Bool {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Base64.decode(parts[2], alphabet: .url),
            let key = try? publicKey()
        else { return false }
        return key.verify(rawSignature: signature, message: Data("\(parts[0]).\(parts[1])".utf8))
    }
}
