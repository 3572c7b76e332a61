import CMicroHTTPD
import COpenSSL
import CPostgres
import CSQLite
import Testing

/// The Debian C libraries link and are the versions the platform notes promise.
@Suite("System libraries")
struct SystemLibraryTests {
    @Test func openSSLIsVersion3() {
        #expect(OpenSSL_version_num() >= 0x3000_0000)
    }

    @Test func sqliteRunsAQuery() throws {
        #expect(sqlite3_libversion_number() >= 3_040_000)
        var database: OpaquePointer?
        #expect(sqlite3_open(":memory:", &database) == SQLITE_OK)
        defer { sqlite3_close(database) }
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(database, "SELECT 40 + 2", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        #expect(sqlite3_column_int(statement, 0) == 42)
    }

    @Test func libpqIsVersion15OrLater() {
        #expect(PQlibVersion() >= 150_000)
        #expect(PQisthreadsafe() == 1)
    }

    @Test func libmicrohttpdReportsItsVersion() throws {
        let version = String(cString: try #require(MHD_get_version()))
        #expect(version.hasPrefix("0.9") || version.hasPrefix("1."))
    }
}
