import Foundation
import Synchronization

/// The zstd dictionaries stored payloads name, read from `payload_dictionaries` once and kept:
/// a dictionary is never changed or deleted, so each row is read with the one it names.
final class PayloadDictionaries: Sendable {
    private let known = Mutex<[Int64: Zstd.Dictionary]>([:])

    /// The JWS `payload` holds, read with the dictionary it names, which `query` fetches when it
    /// is not known yet (another process may have trained it).
    func expand(
        _ payload: StoredPayload, query: (String, [SQLValue]) throws(StoreError) -> [[SQLValue]]
    ) throws(StoreError) -> String {
        let dictionary = try payload.dictionary.map { (id) throws(StoreError) in try self.dictionary(id, query: query) }
        let raw = try Zstd.decompress(payload.frame, with: dictionary)
        guard let jws = String(validating: raw, as: UTF8.self) else {
            throw StoreError(.corrupt, "a stored payload is not UTF-8 text")
        }
        return jws
    }

    /// Dictionary `id`, from memory or from the table through `query`.
    func dictionary(
        _ id: Int64, query: (String, [SQLValue]) throws(StoreError) -> [[SQLValue]]
    ) throws(StoreError) -> Zstd.Dictionary {
        if let known = known.withLock({ $0[id] }) { return known }
        let rows = try query("SELECT dictionary FROM payload_dictionaries WHERE id = ?", [.integer(id)])
        guard case .blob(let bytes) = rows.first?.first else {
            throw StoreError(.corrupt, "a stored payload names payload dictionary \(id), which is not stored")
        }
        let dictionary = try Zstd.Dictionary(id: id, bytes: bytes)
        return known.withLock { known in
            if let first = known[id] { return first }
            known[id] = dictionary
            return dictionary
        }
    }

    /// Keeps a dictionary just written, so that reading what it compressed does not fetch it.
    func add(_ dictionary: Zstd.Dictionary) {
        known.withLock { $0[dictionary.id] = dictionary }
    }
}
