import Foundation
import Threads

/// The simulated App Store's transaction ids: one counter (`.revenuedot/simulator/transaction-ids`)
/// for every app and customer, read and advanced under an exclusive lock, so no two
/// `revenuedot simulate` processes, however many run at once, ever hand out the same id.
///
/// Ids are 16 digits and start with 2, as Apple's do. The counter never goes below a value made
/// from the clock, so ids also stay clear of those in stories saved before the counter existed
/// (derived from the time they started) and of a counter file deleted since.
struct TransactionIDs {
    let file: URL

    init(directory: URL) {
        file = directory.appendingPathComponent("transaction-ids")
    }

    /// A transaction id never given before.
    func next(nowMs: Int64 = UnixTime.nowMs) throws -> String {
        try PrivateFile.createDirectory(file.deletingLastPathComponent().path)
        let counter = try LockedFile(path: file.path)
        let last = Int64(String(decoding: try counter.contents(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        let id = max((last ?? 0) + 1, Self.floor(nowMs: nowMs))
        try counter.replaceContents(with: Data("\(id)\n".utf8))
        return String(id)
    }

    /// Above every id a story that started by `nowMs` made from its start time before the
    /// counter existed (`2`, its milliseconds modulo 10^10, `00001` and up); rising with the clock.
    static func floor(nowMs: Int64) -> Int64 {
        2_000_000_000_000_000 + (nowMs % 10_000_000_000 + 1) * 100_000
    }
}
