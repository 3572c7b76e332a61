import Foundation
import Testing

/// The store owns every table: no SQL statement and no raw query is written anywhere else in
/// the package's sources, so a second engine has one place to go.
@Suite("SQL only in the store")
struct SQLOnlyInStoreTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Statement keywords as SQL spells them, and calls that run SQL text.
    static var patterns: [Regex<AnyRegexOutput>] {
        [
            #"\b(SELECT|INSERT INTO|DELETE FROM|CREATE (TABLE|INDEX|UNIQUE INDEX|TRIGGER)|ALTER TABLE|DROP TABLE|PRAGMA|BEGIN IMMEDIATE)\b"#,
            #"\bUPDATE [a-z_]+ SET\b"#, #"\.(query|execute|run)\(\s*""#, #"\.(query|execute)\(sql"#,
        ].map { try! Regex($0) }
    }

    static func swiftFiles(under path: String) -> [URL] {
        let directory = root.appendingPathComponent(path)
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    @Test func noSQLOutsideTheStorageModule() throws {
        let files = ["Sources", "Benchmarks/Sources", "Fuzz/Sources"].flatMap(Self.swiftFiles)
            .filter { !$0.path.contains("/Sources/Storage/") }
        #expect(files.count > 100, "the walk found the sources")
        var offenders: [String] = []
        let patterns = Self.patterns
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where patterns.contains(where: { line.contains($0) }) {
                offenders.append("\(file.path.dropFirst(Self.root.path.count + 1)):\(number + 1): \(line)")
            }
        }
        #expect(offenders.isEmpty, "SQL outside Sources/Storage:\n\(offenders.joined(separator: "\n"))")
    }

    /// The check itself finds SQL where there is some.
    @Test func theCheckFindsTheStoresOwnSQL() throws {
        let store = Self.swiftFiles(under: "Sources/Storage")
        let patterns = Self.patterns
        let found = try store.filter { file in
            let text = try String(contentsOf: file, encoding: .utf8)
            return patterns.contains { text.contains($0) }
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
        let pattern = try Regex(#"\b(FROM|INTO|UPDATE|JOIN|TABLE)\s+("# + tables.joined(separator: "|") + #")\b"#)
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
}
