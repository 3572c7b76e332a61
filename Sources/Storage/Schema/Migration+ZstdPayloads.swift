import Foundation

// Migration 24: payloads as zstd frames.

extension Migration {
    /// Every notification's raw JWS becomes one zstd frame in `payload`, compressed with the
    /// dictionary `payload_dictionary` names (NULL: none), in place of `signed_payload` and the
    /// compact form with its headers in `jws_headers` (`JWSCompaction`). One scheme instead of
    /// three references, at about half the bytes.
    ///
    /// The rows are converted here (`ZstdPayloadConversion`), with a dictionary made of the
    /// newest of them when there are enough.
    static let v24 = Migration(
        version: 24,
        name: "payloads as zstd frames",
        sql: """
            CREATE TABLE payload_dictionaries (
                id INTEGER PRIMARY KEY,
                dictionary BLOB NOT NULL,
                trained_at INTEGER NOT NULL,
                samples INTEGER NOT NULL
            ) STRICT;
            ALTER TABLE notifications ADD COLUMN payload BLOB;
            ALTER TABLE notifications ADD COLUMN payload_dictionary INTEGER REFERENCES payload_dictionaries (id);
            """,
        data: ZstdPayloadConversion.run)
}

/// Converts the rows of a database before migration 24 to zstd frames.
enum ZstdPayloadConversion {
    /// Below this many rows no dictionary is made here: the store makes one as notifications come.
    static let minimumSamples = 32
    private static let batch: Int64 = 500

    static func run(_ connection: SQLiteConnection) throws(StoreError) {
        var headers: [String: String] = [:]
        let newest = try connection.query(
            "\(select) ORDER BY id DESC LIMIT ?", [.integer(Int64(StoredPayloads.defaultWindow))])
        let samples = try newest.map { (row) throws(StoreError) in Data(try jws(row, headers: &headers, in: connection).utf8) }
        var dictionary: Zstd.Dictionary?
        if samples.count >= minimumSamples,
            let bytes = StoredPayloads.dictionary(from: samples.reversed(), capacity: StoredPayloads.dictionaryCapacity)
        {
            let id = try connection.query(
                "INSERT INTO payload_dictionaries (dictionary, trained_at, samples) VALUES (?, ?, ?) RETURNING id",
                [.blob(bytes), .integer(Int64(Date().timeIntervalSince1970 * 1000)), .integer(Int64(samples.count))]
            ).first?.first?.integerValue
            dictionary = try id.map { (id) throws(StoreError) in try Zstd.Dictionary(id: id, bytes: bytes) }
        }
        var after: Int64 = 0
        while true {
            let rows = try connection.query("\(select) WHERE id > ? ORDER BY id LIMIT ?", [.integer(after), .integer(batch)])
            guard let last = rows.last?[0].integerValue else { break }
            for row in rows {
                let frame = Zstd.compress(Data(try jws(row, headers: &headers, in: connection).utf8), with: dictionary)
                try connection.run(
                    "UPDATE notifications SET payload = ?, payload_dictionary = ? WHERE id = ?",
                    [.blob(frame), SQLValue(dictionary?.id), row[0]])
            }
            after = last
        }
        try connection.execute(
            script: """
                ALTER TABLE notifications DROP COLUMN signed_payload;
                ALTER TABLE notifications DROP COLUMN compact_payload;
                DROP TABLE jws_headers;
                """)
    }

    private static let select = """
        SELECT id, notification_uuid, signed_payload, compact_payload, transaction_json, renewal_json FROM notifications
        """

    /// The raw JWS a row before migration 24 holds: `signed_payload`, or its compact form expanded.
    private static func jws(
        _ row: [SQLValue], headers: inout [String: String], in connection: SQLiteConnection
    ) throws(StoreError) -> String {
        guard case .blob(let body) = row[3] else { return row[2].textValue ?? "" }
        let externals = [row[4].textValue.map { Data($0.utf8) }, row[5].textValue.map { Data($0.utf8) }]
        let expanded = try JWSCompaction.expand(body, externals: externals) { (sha256) throws(StoreError) -> String? in
            if let known = headers[sha256] { return known }
            let header = try connection.query("SELECT header FROM jws_headers WHERE sha256 = ?", [.text(sha256)])
                .first?.first?.textValue
            headers[sha256] = header
            return header
        }
        guard let expanded else {
            throw StoreError(.corrupt, "the stored payload of notification \(row[1]) does not expand")
        }
        return expanded
    }
}
