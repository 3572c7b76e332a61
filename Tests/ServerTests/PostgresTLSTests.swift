import Foundation
import PostgresFixtures
import Testing

@testable import Server
@testable import Storage

/// The README's `sslmode=verify-full`, against a cluster of the test's own that serves TLS with a
/// certificate from a test CA: the CA given as `sslrootcert` (relative to the configuration
/// file, as every file it names) connects; another CA, or a CA file that is not there, is one line.
@Suite(.enabled(if: TestCluster.url != nil))
struct PostgresTLSTests {
    @Test func verifyFullConnectsWithTheCAGivenAsSSLRootCert() throws {
        let cluster = try PrivateCluster(tls: true)
        let url = try cluster.url()
        let fixture = try ServerFixture(database: "\"sqlite:unused.sqlite\"")
        _ = try fixture.directory.write("ca.crt", try String(contentsOfFile: cluster.caPath, encoding: .utf8))
        let password = try fixture.directory.write("db-password", (url.password ?? "") + "\n")
        chmod(password, 0o600)
        let text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        func check(_ query: String) throws -> (status: Int32, output: String) {
            let database =
                #"{"url": "postgres://revenuedot@127.0.0.1:\#(url.port)/postgres?\#(query)", "passwordFile": "db-password"}"#
            let path = try fixture.directory.write(
                "tls.json", text.replacingOccurrences(of: "\"sqlite:unused.sqlite\"", with: database))
            chmod(path, 0o600)
            return try runCLI(["check-config", "--config", path])
        }

        let verified = try check("sslmode=verify-full&sslrootcert=ca.crt")
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("sslmode=verify-full&sslrootcert=\(fixture.directory.path("ca.crt"))"))
        #expect(verified.output.contains("no schema yet"), "\(verified.output)")

        // A CA that did not sign the server's certificate.
        let other = try PrivateCluster(tls: true)
        _ = try fixture.directory.write("other-ca.crt", try String(contentsOfFile: other.caPath, encoding: .utf8))
        let refused = try check("sslmode=verify-full&sslrootcert=other-ca.crt")
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("certificate verify failed"), "\(refused.output)")
        #expect(refused.output.split(separator: "\n").count == 1, "\(refused.output)")

        let missing = try check("sslmode=verify-full&sslrootcert=nowhere.crt")
        #expect(missing.status == 1, "\(missing.output)")
        #expect(missing.output.contains("sslrootcert \(fixture.directory.path("nowhere.crt")) cannot be read"))
    }
}
