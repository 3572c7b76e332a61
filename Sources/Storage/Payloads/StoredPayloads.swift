import Dispatch
import Foundation
import Synchronization
import Threads

/// A notification's raw JWS as its row keeps it: one zstd frame, compressed with the dictionary
/// the row names (`payload_dictionary`; NULL for none).
struct StoredPayload: Sendable, Equatable {
    var frame: Data
    var dictionary: Int64?
}

/// How new payloads are compressed: the dictionary they use, and when to train the next
/// (`DictionaryPlan`).
///
/// Compression runs on the caller's thread, off the writer. A new dictionary is built on a
/// background queue (`dictionary(from:capacity:)`), written through the writer and used for new
/// payloads only once that commit is on disk, so no row ever names a dictionary that is not stored. Dictionaries are never
/// changed or deleted: each row is read with the one it names.
final class StoredPayloads: Sendable {
    /// Payloads weighed before a dictionary is trained (`DictionaryPlan.window`).
    static let defaultWindow = 256
    /// The most bytes a dictionary holds: four or five payloads of Apple's.
    static let dictionaryCapacity = 64 * 1024

    private let queue: WriteQueue
    private let dictionaries: PayloadDictionaries
    private let state: Mutex<(current: Zstd.Dictionary?, plan: DictionaryPlan)>
    /// Entered while a training runs, until its dictionary is adopted or it failed.
    private let trainings = DispatchGroup()

    init(queue: WriteQueue, dictionaries: PayloadDictionaries, window: Int) {
        self.queue = queue
        self.dictionaries = dictionaries
        self.state = Mutex((nil, DictionaryPlan(window: window)))
    }

    /// Makes the newest stored dictionary the one new payloads use, and weighs the payloads
    /// stored with it since (`seedPlan`).
    func adoptNewest(in transaction: ReadTransaction) throws(StoreError) {
        var newest: Zstd.Dictionary?
        if let id = try transaction.query("SELECT max(id) FROM payload_dictionaries").first?.first?.integerValue {
            newest = try dictionaries.dictionary(id) { (sql, arguments) throws(StoreError) in
                try transaction.query(sql, arguments)
            }
        }
        state.withLock { $0.current = newest }
        try seedPlan(with: newest, in: transaction)
    }

    /// Feeds the plan the latest payloads stored with `current` (none: without a dictionary),
    /// oldest first, as if this process had compressed them: the window is the database's,
    /// not the process's, so a server restarted more often than a window fills, or several
    /// nodes sharing the notifications between them, still train a dictionary. A payload that
    /// does not expand (damaged) is left out.
    private func seedPlan(with current: Zstd.Dictionary?, in transaction: ReadTransaction) throws(StoreError) {
        let window = state.withLock { $0.plan.window }
        // The newest rows only (the primary key's end, never a scan of the table): those stored
        // with another dictionary are left out.
        let rows = try transaction.query(
            "SELECT payload, payload_dictionary FROM notifications ORDER BY id DESC LIMIT ?", [.integer(Int64(window))])
        for row in rows.reversed() where row[1].integerValue == current?.id {
            guard case .blob(let frame) = row[0], let raw = try? Zstd.decompress(frame, with: current) else { continue }
            weigh(raw, compressedInto: frame.count)
        }
    }

    /// `jws` compressed with the current dictionary; may start the training of the next one.
    func compress(_ jws: String) -> StoredPayload {
        let raw = Data(jws.utf8)
        let current = state.withLock { $0.current }
        let frame = Zstd.compress(raw, with: current)
        weigh(raw, compressedInto: frame.count)
        return StoredPayload(frame: frame, dictionary: current?.id)
    }

    /// Tells the plan of a payload compressed to `size` bytes, and starts the training it asks for.
    private func weigh(_ raw: Data, compressedInto size: Int) {
        guard case .train(let samples) = state.withLock({ $0.plan.compressed(raw, into: size) }) else { return }
        trainings.enter()
        DispatchQueue.global(qos: .utility).async { self.train(on: samples) }
    }

    /// A dictionary of at most `capacity` bytes: some of `samples` (newest first) put end to end,
    /// each one taken only when the ones taken before do not already fit it, so that it adds
    /// what they lack (another signing chain, or the same nested payloads at another base64
    /// alignment). Nil when no sample fits in `capacity`.
    static func dictionary(from samples: [Data], capacity: Int) -> Data? {
        var content = Data()
        for sample in samples.reversed() where content.count + sample.count <= capacity {
            let fits =
                !content.isEmpty
                && (try? Zstd.Dictionary(id: 0, bytes: content)).map { dictionary in
                    !DictionaryPlan.misses(raw: sample.count, compressed: Zstd.compress(sample, with: dictionary).count)
                } == true
            if !fits { content.append(sample) }
        }
        return content.isEmpty ? nil : content
    }

    /// Builds a dictionary from `samples`, writes it, and uses it once it is on disk.
    private func train(on samples: [Data]) {
        guard let bytes = Self.dictionary(from: samples, capacity: Self.dictionaryCapacity) else {
            trainingFailed()
            return
        }
        let id = Locked<Int64?>(nil)
        let trainedAt = Int64(Date().timeIntervalSince1970 * 1000)
        let work = WriteWork { transaction in
            let inserted = try transaction.insert(
                returningId: "INSERT INTO payload_dictionaries (dictionary, trained_at, samples) VALUES (?, ?, ?) RETURNING id",
                [.blob(bytes), .integer(trainedAt), .integer(Int64(samples.count))])
            id.withLock { $0 = inserted }
        }
        let written = Completion<Void>(callback: { result in
            DispatchQueue.global(qos: .utility).async {
                do throws(StoreError) {
                    try result.get()
                    guard let id = id.value else { throw StoreError(.io, "the dictionary's row id was lost") }
                    let dictionary = try Zstd.Dictionary(id: id, bytes: bytes)
                    self.dictionaries.add(dictionary)
                    self.state.withLock {
                        $0.current = dictionary
                        $0.plan.adopted()
                    }
                    self.trainings.leave()
                } catch {
                    self.trainingFailed()
                }
            }
        })
        if !queue.enqueue(.work(work, written)) { trainingFailed() }
    }

    /// No dictionary came of the training (too few distinct samples, a failed write, a closed
    /// store): payloads keep the current one, and the plan weighs a new window before trying again.
    private func trainingFailed() {
        state.withLock { $0.plan.failed() }
        trainings.leave()
    }

    /// Waits until no training runs (for tests: a training started by `compress` has ended).
    func waitForTrainings() {
        trainings.wait()
    }
}
