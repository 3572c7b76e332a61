import Foundation
import Testing

/// The store owns every table: no SQL statement and no raw query is written anywhere else in
/// the package's sources, so a second engine has one place to go.
@Suite("SQL only in the store")
struct SQLOnlyInStoreTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A name in SQL text: a word, quoted or not, or a Swift interpolation (`\(table)`).
    static let name = #"("?[a-z_.][a-z0-9_.]*"?|\\\([^)]*\))"#

    /// SQL statements in any case, across lines (`\s+` spans newlines), and calls that run
    /// SQL text. English prose rarely takes these shapes; comments are left out before matching.
    static var patterns: [Regex<AnyRegexOutput>] {
        [
            #"(?i)\bselect\s+(distinct\s+)?(\*|\d|\?|\$\d|'|case\s+when\b|[a-z_]+\(|"# + name + #"\s*(,|\s+from\b|\s+as\b))"#,
            #"(?i)\binsert\s+(or\s+[a-z]+\s+)?into\s+"# + name,
            #"(?i)\breplace\s+into\s+"# + name,
            #"(?i)\bdelete\s+from\s+"# + name + #"\s*(where\b|returning\b|using\b|;|"|\\\(|$)"#,
            #"(?i)\bupdate\s+"# + name + #"(\s+as\s+[a-z_]+)?\s+set\s+("# + name + #"\s*=|\()"#,
            #"(?i)\bmerge\s+into\s+"# + name + #"\s+(as\s+[a-z_]+\s+)?using\b"#, #"(?i)\battach\s+database\b"#,
            #"(?i)\bgrant\s+(select|insert|update|delete|all|usage|connect|create|execute|truncate)\b[a-z, ]*\s+on\s+"#,
            #"(?i)\b(create|drop|alter)\s+(or\s+replace\s+)?(temp\s+|temporary\s+|unlogged\s+|virtual\s+|materialized\s+)?"#
                + #"(table|index|unique\s+index|trigger|view|database|schema|sequence|extension|function)\b"#,
            #"(?i)\bpragma\s+[a-z_]+\s*(=|\(|;|"|')"#, #"(?i)\bwith\s+(recursive\s+)?[a-z_]+\s+as\s*\(\s*select\b"#,
            ##"["']\s*(BEGIN(\s+(IMMEDIATE|EXCLUSIVE|DEFERRED|TRANSACTION|ISOLATION)\b|\s*[;"'])|"##
                + #"(COMMIT|ROLLBACK|SAVEPOINT|RELEASE|VACUUM|ANALYZE|TRUNCATE|LISTEN|NOTIFY|CHECKPOINT|COPY|SET|SHOW)\b)"#,
            ##"\.(query|queries|execute|run|sendQuery|exec)\(\s*(script:\s*)?""##, #"\.(query|execute)\(sql"#,
            #"\.(query|queries)\(\s*[a-z_][A-Za-z0-9_]*\s*[,)]"#,
            #"\b(sqlite3_exec|sqlite3_prepare_v[23]|PQexec[A-Za-z]*|PQprepare|PQsendPrepare|PQsendQuery[A-Za-z]*)\("#,
        ].map { try! Regex($0) }
    }

    static func files(under path: String, extensions: Set<String> = ["swift"]) -> [URL] {
        let directory = root.appendingPathComponent(path)
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { extensions.contains($0.pathExtension) }
    }

    /// Files under `path` without an extension that start with `#!`: scripts such as `.ci/run`.
    static func shebangScripts(under path: String) -> [URL] {
        files(under: path, extensions: [""]).filter { file in
            guard let handle = FileHandle(forReadingAtPath: file.path) else { return false }
            defer { try? handle.close() }
            return (try? handle.read(upToCount: 2)) == Data("#!".utf8)
        }
    }

    /// The path of `file` from the package's root.
    static func relative(_ file: URL) -> String { String(file.path.dropFirst(root.path.count + 1)) }

    static func swiftFiles(under path: String) -> [URL] { files(under: path) }

    /// `text` without its comments: Swift's `//` (but a URL's `://`) and `/* */`, or the `#`
    /// lines of a script (whose `/*` is a glob and `//` a path or URL).
    static func withoutComments(_ text: String, script: Bool) -> String {
        script
            ? text.replacing(#/(?m)^\s*#[^\n]*/#, with: "")
            : text.replacing(#/(?s)/\*.*?\*/|(?m)(^|[^:])//[^\n]*/#) { String($0.output.1 ?? "") }
    }

    /// Where `text` holds SQL: "line: the line" for each match.
    static func sql(in text: String, script: Bool = false) -> [String] {
        let text = withoutComments(text, script: script)
        var found: [String] = []
        for pattern in patterns {
            for match in text.matches(of: pattern) {
                let line = text[..<match.range.lowerBound].count { $0 == "\n" } + 1
                found.append("\(line): \(text[match.range].prefix(80))")
            }
        }
        return found
    }

    /// Scripts beside the sources that measure the store's own bytes, read-only, by design: the
    /// benchmark's figures for stored payloads and database size are about its format.
    static let measuringScripts: Set<String> = ["Benchmarks/compression.py", "Benchmarks/history.sh"]

    @Test func noSQLOutsideTheStorageModule() throws {
        let swift = ["Sources", "Benchmarks/Sources", "Fuzz/Sources", "Plugins", "docs/snippets"].flatMap(Self.swiftFiles)
            .filter { !Self.relative($0).hasPrefix("Sources/Storage/") }
        let scriptFolders = ["Benchmarks", "scripts", ".ci", "Tests/Browser", "contrib"]
        let scripts =
            (scriptFolders.flatMap { Self.files(under: $0, extensions: ["py", "sh"]) + Self.shebangScripts(under: $0) }
            + [Self.root.appendingPathComponent("Makefile")])
            .filter { !$0.path.contains("/venv/") }
        #expect(swift.count > 100, "the walk found the sources")
        #expect(scripts.count > 5, "the walk found the scripts")
        #expect(scripts.contains { Self.relative($0) == ".ci/run" }, "the walk found scripts without an extension")
        var offenders: [String] = []
        for (file, script) in swift.map({ ($0, false) }) + scripts.map({ ($0, true) }) {
            let path = Self.relative(file)
            guard !Self.measuringScripts.contains(path) else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            offenders += Self.sql(in: text, script: script).map { "\(path):\($0)" }
        }
        #expect(offenders.isEmpty, "SQL outside Sources/Storage:\n\(offenders.joined(separator: "\n"))")
    }

    /// The check finds SQL in the shapes a violation would take, and not in prose.
    @Test(arguments: [
        (#"let q = "select id from notifications where uuid = ?""#, true),
        ("try connection.execute(\"\"\"\n    UPDATE purchases\n    SET json = ?\n    \"\"\")", true),
        (#"try db.run("INSERT OR IGNORE INTO events (id) VALUES (?)")"#, true),
        (#"x.write("Replace Into customers (id) values (?)")"#, true),
        (#"let s = "DELETE FROM timers WHERE id = ?""#, true),
        (#"let s = "drop index purchases_owner""#, true),
        (#"try runner.execute(script: script)"#, false),
        (#"try runner.execute(script: "x")"#, true),
        (#"let s = "COMMIT""#, true),
        (#"let s = "WITH due AS (SELECT id FROM timers) DELETE FROM timers""#, true),
        (#"PQexec(connection, text)"#, true),
        (#"PQexecPrepared(connection, name, 1, values, nil, nil, 0)"#, true),
        (#"psql "$url" -qc "CREATE DATABASE bench_1""#, true),
        (#"let s = "drop schema public cascade""#, true),
        (#"let s = "SELECT ?""#, true),
        (#"let s = "SELECT $1::bigint""#, true),
        (#"let s = "CHECKPOINT""#, true),
        (#"createdb --maintenance-db="$url" bench"#, false),
        (#"print("create a database, then drop the old one")"#, false),
        (#"let s = "UPDATE \(table) SET \(column) = ?""#, true),
        (#"let s = "SELECT \(columns) FROM \(table)""#, true),
        (#"let s = "INSERT INTO \(table) (\(list)) VALUES (?)""#, true),
        (#"let s = "DELETE FROM \(table) RETURNING id""#, true),
        (#"let s = "DELETE FROM timers RETURNING id""#, true),
        ("// SELECT id FROM notifications: documented, not run", false),
        (#"print("select the notifications you want, then delete from the list")"#, false),
        (#"log.info("the commit is durable")"#, false),
        (#"let help = "Update your config, set the key, then run it again""#, false),
        (#"let s = "SELECT col2 FROM t2""#, true),
        (#"let s = "SELECT CASE WHEN x THEN 1 END""#, true),
        (#"let s = "UPDATE t AS x SET a = 1""#, true),
        (#"let s = "UPDATE t SET (a, b) = (1, 2)""#, true),
        (#"let s = "CREATE OR REPLACE FUNCTION f() RETURNS int""#, true),
        (#"let s = "CREATE UNLOGGED TABLE t (a int)""#, true),
        (#"let s = "CREATE VIRTUAL TABLE t USING fts5(a)""#, true),
        (#"let s = "GRANT SELECT ON events TO reader""#, true),
        (#"let s = "ATTACH DATABASE 'x' AS y""#, true),
        (#"let s = "MERGE INTO events USING x ON true""#, true),
        (#"let rows = try reader.query(text)"#, true),
        (#"let u = "postgres://h/db"; let s = "DELETE FROM t WHERE id = 1""#, true),
        ("/* SELECT id FROM notifications */ let x = 1", false),
        (#"print("grant the role on the first run")"#, false),
        (#"print("merge into one list, then attach the file")"#, false),
    ])
    func theCheckTellsSQLFromProse(line: String, isSQL: Bool) {
        #expect(!Self.sql(in: line).isEmpty == isSQL, "\(line)")
    }

    /// In a script, a URL or a glob is not a comment, and single quotes hold SQL too.
    @Test(arguments: [
        (#"psql "postgresql://h/db" -c "DROP TABLE x""#, true),
        (#"rm -f "$dir"/* && psql -qc 'VACUUM ANALYZE' && echo */"#, true),
        (#"sqlite3 db 'PRAGMA integrity_check'"#, true),
        ("# SELECT id FROM notifications: a comment", false),
        (#"cp "$dir"/*.sql /tmp"#, false),
    ])
    func scriptsAreReadAsScripts(line: String, isSQL: Bool) {
        #expect(!Self.sql(in: line, script: true).isEmpty == isSQL, "\(line)")
    }

    /// The raw-SQL calls of the store's transactions (`query`, `execute`, `write`, ...) are
    /// `@_spi(StoreSQL)`: the compiler refuses them to a module that does not import that SPI,
    /// and only tests do.
    @Test func onlyTestsImportTheStoresSQL() throws {
        let files = ["Sources", "Benchmarks/Sources", "Fuzz/Sources", "Plugins", "docs/snippets"].flatMap(Self.swiftFiles)
            .filter { !Self.relative($0).hasPrefix("Sources/Storage/") }
        var importers: [String] = []
        for file in files where try String(contentsOf: file, encoding: .utf8).contains(#/@_spi\s*\(\s*StoreSQL\s*\)/#) {
            importers.append(Self.relative(file))
        }
        #expect(importers.isEmpty, "outside the store, \(importers) import its SQL")
        let declared = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/Storage/Engine/WriteTransaction.swift"), encoding: .utf8)
        #expect(declared.matches(of: #/@_spi\(StoreSQL\) public func/#).count >= 4)
    }

    /// The check itself finds SQL where there is some.
    @Test func theCheckFindsTheStoresOwnSQL() throws {
        let store = Self.swiftFiles(under: "Sources/Storage")
        let found = try store.filter { file in
            !Self.sql(in: try String(contentsOf: file, encoding: .utf8)).isEmpty
        }
        #expect(found.count >= 10)
    }

    /// The tables of the schema a new database gets, but `schema_migrations` (the migrator's).
    static func domainTables() throws -> [String] {
        let schema = try String(
            contentsOf: root.appendingPathComponent("Sources/Storage/Schema/schema.sql"), encoding: .utf8)
        return schema.matches(of: #/CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_]+)/#).map { String($0.output.1) }
            .filter { $0 != "schema_migrations" }
    }

    /// Lines of `files` whose SQL names one of `tables`.
    static func linesNaming(_ tables: [String], in files: [URL]) throws -> [String] {
        let pattern = try Regex(#"(?i)\b(FROM|INTO|UPDATE|JOIN|TABLE)\s+("# + tables.joined(separator: "|") + #")\b"#)
        var found: [String] = []
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where line.contains(pattern) {
                found.append("\(file.path.dropFirst(Self.root.path.count + 1)):\(number + 1): \(line)")
            }
        }
        return found
    }

    /// The engines (connections, the writer, readers, locks) run the typed operations' SQL and
    /// name no table of their own: each table's SQL is in the folder of its concern.
    @Test func theEngineLayerNamesNoTable() throws {
        let tables = try Self.domainTables()
        #expect(tables.count >= 20 && tables.contains("notifications") && tables.contains("rejects"))
        let engine = try Self.linesNaming(tables, in: Self.swiftFiles(under: "Sources/Storage/Engine"))
        #expect(engine.isEmpty, "table SQL in the engine layer:\n\(engine.joined(separator: "\n"))")
        let operations = try Self.linesNaming(tables, in: Self.swiftFiles(under: "Sources/Storage/Notifications"))
        #expect(operations.count >= 5, "the check finds the notifications' own SQL")
    }

    /// Nor does the engine call the `*SQL` and `*Rows` types that hold the operations' SQL
    /// (`NotificationSQL`, `RejectRows`, `LedgerRows`, ...): it runs the items the operations hand
    /// it (`NotificationWrite`, `PendingRejects`).
    @Test func theEngineLayerCallsNoOperationsSQL() throws {
        let operationFolders = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Sources/Storage").path
        ).filter { !["Engine", "Schema"].contains($0) }
        var holders: Set<String> = []
        for folder in operationFolders {
            for file in Self.swiftFiles(under: "Sources/Storage/\(folder)") {
                let text = try String(contentsOf: file, encoding: .utf8)
                for match in text.matches(of: #/(?:enum|struct|class|extension) ([A-Za-z]+(?:SQL|Rows))\b/#) {
                    holders.insert(String(match.output.1))
                }
            }
        }
        #expect(holders.isSuperset(of: ["NotificationSQL", "RejectRows", "LedgerRows", "EventRows"]), "\(holders.sorted())")
        let pattern = try Regex(#"\b("# + holders.sorted().joined(separator: "|") + #")\b"#)
        var found: [String] = []
        let engine = Self.swiftFiles(under: "Sources/Storage/Engine")
        #expect(engine.count >= 20, "the engine's files are read")
        for file in engine {
            let code = Self.withoutComments(try String(contentsOf: file, encoding: .utf8), script: false)
            for line in code.split(separator: "\n") where line.contains(pattern) {
                found.append("\(file.lastPathComponent): \(line)")
            }
        }
        #expect(found.isEmpty, "the engine calls an operation's SQL:\n\(found.joined(separator: "\n"))")
    }
}
