import Foundation
import Server

/// The files of a SQLite database that a start is about to make, for `serve` to remove when the
/// start fails: a start that cannot listen leaves no database behind that it made. Nothing when
/// the database file is there already (or is PostgreSQL's).
struct NewDatabaseFiles {
    private let paths: [String]

    init(_ database: DatabaseLocation) {
        guard case .sqlite(let path) = database, !FileManager.default.fileExists(atPath: path) else {
            paths = []
            return
        }
        let lock = URL(fileURLWithPath: path).resolvingSymlinksInPath().path + ".lock"
        paths = [path, path + "-wal", path + "-shm", lock].filter { !FileManager.default.fileExists(atPath: $0) }
    }

    /// Removes those of the files that exist now; call once the store is closed.
    func remove() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }
}
