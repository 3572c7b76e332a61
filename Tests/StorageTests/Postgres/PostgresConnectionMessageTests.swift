import Foundation
import Testing

@testable import Storage

/// What libpq says reaches RevenueDot's errors as one line, and libpq itself prints nothing.
struct PostgresConnectionMessageTests {
    @Test(arguments: [
        (
            "connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n"
                + "\tIs the server running on that host and accepting TCP/IP connections?\n",
            "connection to server at \"127.0.0.1\", port 1 failed: Connection refused; "
                + "Is the server running on that host and accepting TCP/IP connections?"
        ),
        (
            "server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n"
                + "\tbefore or while processing the request.\n",
            "server closed the connection unexpectedly; This probably means the server terminated abnormally "
                + "before or while processing the request."
        ),
        (
            "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  password authentication failed for user \"rd\"\n",
            "connection to server at \"127.0.0.1\", port 5432 failed: FATAL: password authentication failed for user \"rd\""
        ),
        (
            "ERROR:  duplicate key value violates unique constraint \"u_pkey\"\nDETAIL:  Key (k)=(a) already exists.\n",
            "ERROR: duplicate key value violates unique constraint \"u_pkey\"; DETAIL: Key (k)=(a) already exists."
        ),
        // libpq's two attempts under sslmode=prefer (with TLS, then without), refused alike.
        (
            "connection to server at \"h\", port 5 failed: FATAL:  password authentication failed for user \"rd\"\n"
                + "connection to server at \"h\", port 5 failed: FATAL:  password authentication failed for user \"rd\"\n",
            "connection to server at \"h\", port 5 failed: FATAL: password authentication failed for user \"rd\""
        ),
        ("", ""),
    ])
    func libpqMessagesBecomeOneLine(message: String, line: String) {
        #expect(PostgresConnection.oneLine(message) == line)
    }

    /// libpq reads a password file only when `stat` finds it, and warns on standard error about
    /// one that is not a regular file (`/dev/null`): the configured one must be found by nothing.
    @Test func thePasswordFileLibpqIsGivenCannotExist() {
        var status = stat()
        let found = stat(PostgresURL.absentPasswordFile, &status) == 0
        let reason = errno
        #expect(!found)
        #expect(reason == ENOTDIR)
        let url = try? PostgresURL("postgres://rd@127.0.0.1/rd", environment: [:])
        #expect(url?.connectionParameters.contains { $0 == ("passfile", PostgresURL.absentPasswordFile) } == true)
    }

    /// Nothing listening, or a wrong password: `.unavailable`, libpq's reason in one line with the
    /// server named once, never a password.
    @Test(.enabled(if: PostgresTestDatabase.isAvailable)) func aConnectionRefusedIsOneLine() throws {
        let cluster = try #require(PostgresTestDatabase.cluster)
        var wrong = cluster
        wrong.password = "wrong-\(UUID().uuidString)"
        try Self.withRefusingPort { port in
            var closed = cluster
            closed.port = port
            for url in [closed, wrong] {
                let error = #expect(throws: StoreError.self) { try PostgresConnection(url: url) }
                let message = error?.message ?? ""
                #expect(error?.code == .unavailable)
                #expect(!message.contains("\n") && !message.contains("\t") && !message.contains(#"\u{"#), "\(message)")
                #expect(message.components(separatedBy: url.description).count == 2, "\(message)")
                #expect(!message.contains(wrong.password ?? "") && !message.contains(cluster.password ?? ""))
            }
            let refused = #expect(throws: StoreError.self) { try PostgresConnection(url: closed) }
            #expect(refused?.message.contains("Connection refused; Is the server running") == true, "\(refused?.message ?? "")")
        }
    }

    /// Calls `body` with a loopback port that refuses connections: bound, so that no other
    /// process takes it meanwhile, and never listened on.
    static func withRefusingPort(_ body: (Int) throws -> Void) throws {
        let bound = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(bound) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(bound, $0, length) == 0 && getsockname(bound, $0, &length) == 0
            }
        }
        try #require(bound >= 0 && ok)
        try body(Int(UInt16(bigEndian: address.sin_port)))
    }
}
