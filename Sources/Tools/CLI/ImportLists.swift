import Foundation
import Server

/// The rows an import lists beside its CSV, in its format, so import reads them back: those
/// Apple knows in none of the environments asked in `FILE.APP.not-found.csv` (to try in another
/// environment, or to hand back to whoever exported them), those that failed in
/// `FILE.APP.failed.csv`, with a `reason` column (to run again once the reason is dealt with).
/// They are the app's, as its checkpoint is: a run for another app never cuts or adds to them.
///
/// Each batch's rows are appended before the checkpoint moves past them, and the checkpoint
/// keeps where both lists ended (`note`): a run that resumes cuts them back to there, so each
/// row behind the checkpoint is listed once, in the list its last outcome puts it in, and an
/// interrupted run loses none. A new run starts the lists again.
final class ImportLists {
    private var notFound: List
    private var failed: List

    /// The lists of `file`'s run for app `appId`: a new one (`resumedFrom` nil), or the run that
    /// resumes from a checkpoint whose note is `resumedFrom` (one without, an older build's,
    /// leaves them as they are).
    init(file: String, appId: String, resumedFrom note: String?) {
        let ends = note.map { $0.split(separator: ",").compactMap { off_t($0) } }
        notFound = List(
            path: Self.path(file: file, appId: appId, list: "not-found"), header: ["original_transaction_id", "app_user_id"])
        failed = List(
            path: Self.path(file: file, appId: appId, list: "failed"),
            header: ["original_transaction_id", "app_user_id", "reason"])
        switch ends {
        case nil:
            notFound.cut(to: 0)
            failed.cut(to: 0)
        case let ends? where ends.count == 2:
            notFound.cut(to: ends[0])
            failed.cut(to: ends[1])
        default: break
        }
    }

    /// Where app `appId`'s run on `file` keeps `list` (`not-found` or `failed`): beside the file,
    /// named after both (an app id holds no `/`: the configuration refuses one).
    static func path(file: String, appId: String, list: String) -> String { "\(file).\(appId).\(list).csv" }

    /// Where both lists end now, for the checkpoint (`Import.run`'s `note`).
    var note: String { "\(notFound.size),\(failed.size)" }

    /// Appends a batch's rows (`Import.run`'s `list`); a list that cannot be written is said,
    /// with every id it would have held.
    func add(_ listed: Import.Listed, appId: String) {
        let problems = [
            notFound.append(listed.notFound.map { [$0.originalTransactionId, $0.appUserId ?? ""] }),
            failed.append(listed.failed.map { [$0.row.originalTransactionId, $0.row.appUserId ?? "", $0.reason] }),
        ]
        for problem in problems.compactMap({ $0 }) { StandardStreams.error("import \(appId): \(problem)\n") }
    }

    /// Where the run's rows are listed, to say once it ends.
    func report(notFound count: Int, failed failures: Int, appId: String) {
        if count > 0, notFound.written {
            StandardStreams.error("import \(appId): the \(count) not found are listed in \(notFound.path)\n")
        }
        if failures > 0, failed.written {
            StandardStreams.error("import \(appId): the \(failures) failed are listed in \(failed.path)\n")
        }
    }

    private struct List {
        let path: String
        let header: [String]
        /// Its length in bytes, as this run left it.
        var size: off_t = 0
        /// Whether every row given was written.
        var written = true

        init(path: String, header: [String]) {
            (self.path, self.header) = (path, header)
            size = Self.size(path)
        }

        /// The length of the file at `path` itself (a symbolic link's, not what it names: the
        /// list refuses one when it writes); 0 when there is none.
        static func size(_ path: String) -> off_t {
            var status = stat()
            return lstat(path, &status) == 0 ? status.st_size : 0
        }

        /// Cuts the list back to `length` bytes (none: it goes), where it is longer.
        mutating func cut(to length: off_t) {
            guard size > length else { return }
            if length == 0 {
                // unlink(2) removes a symbolic link itself, never what it names.
                _ = unlink(path)
            } else {
                try? LockedFile(path: path).truncate(to: length)
            }
            size = Self.size(path)
        }

        /// Appends `rows` (the header first, to a list not there); why, with every id not
        /// listed, when it cannot (a write stopped partway is cut off, so the list stays whole).
        mutating func append(_ rows: [[String]]) -> String? {
            guard !rows.isEmpty else { return nil }
            let header = size == 0 ? Import.csvLine(self.header) : ""
            let data = Data((header + rows.map(Import.csvLine).joined()).utf8)
            do throws(LockedFile.Failure) {
                // Made 0600 if new: it names customers.
                try LockedFile(path: path).append(data)
                size += off_t(data.count)
                return nil
            } catch {
                written = false
                size = Self.size(path)
                return "\(error.description); not listed there: " + rows.map { $0[0] }.joined(separator: ", ")
            }
        }
    }
}
