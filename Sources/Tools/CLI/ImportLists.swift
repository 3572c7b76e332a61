import Foundation
import Server

/// The rows an import lists beside its CSV, in its format, so import reads them back: those
/// Apple knows in none of the environments asked in `FILE.not-found.csv` (to try in another
/// environment, or to hand back to whoever exported them), those that failed in
/// `FILE.failed.csv`, with a `reason` column (to run again once the reason is dealt with).
///
/// Each batch's rows are appended before the checkpoint moves past them, so an interrupted run
/// loses none. A resumed run adds to the lists of the run it resumes, a row listed already
/// staying listed once; a new run starts them again.
final class ImportLists {
    private var notFound: List
    private var failed: List

    init(file: String, resumed: Bool) {
        notFound = List(path: file + ".not-found.csv", header: ["original_transaction_id", "app_user_id"], resumed: resumed)
        failed = List(path: file + ".failed.csv", header: ["original_transaction_id", "app_user_id", "reason"], resumed: resumed)
    }

    /// Appends a batch's rows (`Import.run`'s `list`); a list that cannot be written is said
    /// once, and its rows are then only counted.
    func add(_ listed: Import.Listed, appId: String) {
        let problems = [
            notFound.append(listed.notFound.map { ($0.originalTransactionId, [$0.originalTransactionId, $0.appUserId ?? ""]) }),
            failed.append(
                listed.failed.map { failure in
                    let row = failure.row
                    return (row.originalTransactionId, [row.originalTransactionId, row.appUserId ?? "", failure.reason])
                }),
        ]
        for problem in problems.compactMap({ $0 }) { StandardStreams.error("import \(appId): \(problem)\n") }
    }

    /// Where the run's rows are listed, to say once it ends.
    func report(notFound count: Int, failed failures: Int, appId: String) {
        if count > 0, notFound.problem == nil {
            StandardStreams.error("import \(appId): the \(count) not found are listed in \(notFound.path)\n")
        }
        if failures > 0, failed.problem == nil {
            StandardStreams.error("import \(appId): the \(failures) failed are listed in \(failed.path)\n")
        }
    }

    private struct List {
        let path: String
        let header: [String]
        /// The ids listed already: a resumed run's first batch may be the interrupted one's.
        var ids: Set<String> = []
        /// Why the list could not be written, once it could not.
        var problem: String?

        init(path: String, header: [String], resumed: Bool) {
            (self.path, self.header) = (path, header)
            guard resumed else {
                try? FileManager.default.removeItem(atPath: path)
                return
            }
            let listed = FileManager.default.contents(atPath: path).flatMap {
                try? Import.rows(csv: String(decoding: $0, as: UTF8.self))
            }
            ids = Set((listed ?? []).map(\.originalTransactionId))
        }

        /// Appends the rows not listed yet; says why once, the first time it cannot.
        mutating func append(_ rows: [(id: String, fields: [String])]) -> String? {
            let fresh = rows.filter { ids.insert($0.id).inserted }
            guard !fresh.isEmpty, problem == nil else { return nil }
            let header = FileManager.default.fileExists(atPath: path) ? "" : Import.csvLine(self.header)
            do throws(LockedFile.Failure) {
                // Made 0600 if new: it names customers.
                try LockedFile(path: path).append(Data((header + fresh.map { Import.csvLine($0.fields) }.joined()).utf8))
                return nil
            } catch {
                problem = error.description
                return "\(error.description): the rows are not listed there"
            }
        }
    }
}
