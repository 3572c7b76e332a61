import Synchronization

/// Whether the database file was found damaged (SQLite's `SQLITE_CORRUPT` or `SQLITE_NOTADB` in
/// any read or write): once found, for as long as the store is open. A damaged page does not
/// mend, and writes that miss it still succeed, so neither a later commit nor a lock taken may
/// make the store look healthy; the health check fails until the file is restored from a
/// backup and the server restarted.
public final class DatabaseDamage: Sendable {
    private let first = Mutex<StoreError?>(nil)

    public init() {}

    /// Records `error` if it is the first that found the file damaged.
    func note(_ error: StoreError) {
        guard error.isDamagedFile else { return }
        first.withLock { found in
            if found == nil { found = error }
        }
    }

    /// What the health check answers once the file was found damaged; nil until then.
    public var failure: StoreError? {
        first.withLock { found in
            found.map { found in
                StoreError.damagedFile(
                    "the database file is damaged (\(found.message)): restore it from a backup (revenuedot restore) "
                        + "and restart")
            }
        }
    }
}
