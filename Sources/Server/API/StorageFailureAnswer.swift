import HTTP
import Storage

extension HTTPResponse {
    /// What a storage failure answers: 503, or 500 for a stored row that cannot be read or a
    /// damaged database file (retrying cannot help). The secret key, the team's own backend,
    /// reads the reason; the public key, which ships inside the app, reads only that storage failed.
    static func storageFailure(_ error: StoreError, access: APIKeys.Access) -> HTTPResponse {
        let corrupt = error.code == .corrupt
        let status = corrupt ? 500 : 503
        let code = error.isDamagedFile ? "storage_damaged" : corrupt ? "stored_state_invalid" : "storage_unavailable"
        guard access == .secret else {
            let message =
                error.isDamagedFile
                ? "the database file is damaged"
                : corrupt ? "a stored row cannot be read" : "storage cannot answer now; retry later"
            return .error(status: status, code: code, message: message)
        }
        return .error(status: status, code: code, message: "\(error)")
    }
}
