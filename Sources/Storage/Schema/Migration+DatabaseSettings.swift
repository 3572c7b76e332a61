// Migration 29: choices a database makes once and keeps.

extension Migration {
    /// `database_settings`: a value per name, written once (`DatabaseSettings`). Empty after the
    /// migration: the writer makes each choice at its start, where it can tell a new database
    /// from one with history. The same table on PostgreSQL (`PostgresSchema.later`).
    static let v29 = Migration(
        version: 29,
        name: "database settings",
        sql: """
            CREATE TABLE database_settings (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            """)
}
