import Synchronization

/// A few read-only connections, each behind its own `Mutex`, so reads run in parallel with each
/// other and with the writer (WAL readers see the last commit and never block it).
///
/// A connection never leaves its mutex: reads run inside the lock. Connections open on first use.
final class ReaderPool: Sendable {
    private enum Slot {
        case unopened
        case open(any ReaderConnection)
        case closed
    }

    private final class Guarded: Sendable {
        let slot = Mutex<Slot>(.unopened)
    }

    private let open: @Sendable () throws(StoreError) -> any ReaderConnection
    private let slots: [Guarded]
    private let nextSlot = Atomic<UInt>(0)
    /// The dictionaries of stored payloads, read once for every connection of the pool.
    let dictionaries = PayloadDictionaries()
    /// Whether a read or a write found the database file damaged (the writer notes its own).
    let damage = DatabaseDamage()

    /// A pool of at most `size` connections, each opened by `open` when first needed.
    init(size: Int, open: @escaping @Sendable () throws(StoreError) -> any ReaderConnection) {
        self.open = open
        self.slots = (0..<max(1, size)).map { _ in Guarded() }
    }

    /// A pool of SQLite connections to the file at `path`.
    convenience init(path: String, size: Int, role: SQLiteConnection.Role = .reader) {
        self.init(size: size) { () throws(StoreError) in try SQLiteConnection(path: path, role: role) }
    }

    /// Runs `body` with a free reader connection, waiting for one only if all are busy.
    func read<T: Sendable>(_ body: @Sendable (any ReaderConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let start = Int(nextSlot.wrappingAdd(1, ordering: .relaxed).newValue % UInt(slots.count))
        for offset in 0..<slots.count {
            let guarded = slots[(start + offset) % slots.count]
            if let result = try guarded.slot.withLockIfAvailable({ (slot) throws(StoreError) -> T in
                try use(&slot, body)
            }) {
                return result
            }
        }
        return try slots[start % slots.count].slot.withLock { (slot) throws(StoreError) -> T in try use(&slot, body) }
    }

    /// Closes every connection (after any read in progress) and refuses reads from now on.
    func close() {
        for guarded in slots {
            guarded.slot.withLock { $0 = .closed }
        }
    }

    private func use<T>(
        _ slot: inout Slot, _ body: @Sendable (any ReaderConnection) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        switch slot {
        case .open(let connection) where connection.isUsable:
            do throws(StoreError) {
                return try body(connection)
            } catch {
                damage.note(error)
                // A connection the server dropped (a restart) is found out only when used: a
                // read is run again once on a new one.
                guard !connection.isUsable else { throw error }
                let fresh = try open()
                slot = .open(fresh)
                return try body(fresh)
            }
        case .open, .unopened:
            do throws(StoreError) {
                let connection = try open()
                slot = .open(connection)
                return try body(connection)
            } catch {
                damage.note(error)
                throw error
            }
        case .closed:
            throw StoreError(.unavailable, "the store is closed")
        }
    }
}
