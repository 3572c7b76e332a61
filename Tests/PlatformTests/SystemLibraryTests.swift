import CMicroHTTPD
import COpenSSL
import CPostgres
import CSQLite
import CZstd
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

    @Test func zstdRoundTripsABuffer() {
        #expect(ZSTD_versionNumber() >= 10_400)
        let input = Array(repeating: UInt8(ascii: "a"), count: 4096)
        var compressed = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
        let size = ZSTD_compress(&compressed, compressed.count, input, input.count, 3)
        #expect(ZSTD_isError(size) == 0 && size < 100)
        var output = [UInt8](repeating: 0, count: input.count)
        let restored = ZSTD_decompress(&output, output.count, compressed, size)
        #expect(ZSTD_isError(restored) == 0 && restored == input.count && output == input)
    }

    @Test func libmicrohttpdReportsItsVersion() throws {
        let version = String(cString: try #require(MHD_get_version()))
        #expect(version.hasPrefix("0.9") || version.hasPrefix("1."))
    }
}
