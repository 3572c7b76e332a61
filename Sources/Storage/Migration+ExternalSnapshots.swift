// Migration 16: compact payloads that refer to the snapshot columns for their nested payloads.

extension Migration {
    /// Compact payloads (`JWSCompaction`, migration 7) leave out the nested transaction and renewal
    /// info payload segments where they encode exactly `transaction_json` and `renewal_json`, which
    /// the row holds anyway: about 1.3 kB of a 3.2 kB row, so that two rows fit in a page.
    ///
    /// No table changes, and rows written before expand as they did. The version is what matters:
    /// a build before this one would read a new row's references as payload bytes and give a
    /// wrong `signedPayload`, and it refuses a database at a version it does not know.
    static let v16 = Migration(
        version: 16,
        name: "compact payloads refer to the snapshot columns",
        sql: "")
}
