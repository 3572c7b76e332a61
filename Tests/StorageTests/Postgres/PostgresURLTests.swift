import Foundation
import Testing

@testable import Storage

@Suite struct PostgresURLTests {
    @Test func readsEveryPart() throws {
        let url = try PostgresURL("postgres://rd%40ops:p%2Fss@db.example.com:6543/revenue?sslmode=verify-full", environment: [:])
        #expect(url.user == "rd@ops")
        #expect(url.password == "p/ss")
        #expect(url.host == "db.example.com")
        #expect(url.port == 6543)
        #expect(url.database == "revenue")
        #expect(url.sslMode == "verify-full")
        #expect(url.description == "postgres://rd@ops@db.example.com:6543/revenue?sslmode=verify-full")
        let plain = try PostgresURL("postgresql://rd@localhost/revenue", environment: [:])
        #expect(plain.port == 5432)
        #expect(plain.password == nil)
        #expect(plain.sslMode == nil)
        let tls = try PostgresURL(
            "postgres://rd@db/revenue?sslmode=verify-ca&sslrootcert=/etc/revenuedot/db-ca.pem", environment: [:])
        #expect(tls.sslRootCert == "/etc/revenuedot/db-ca.pem")
        #expect(tls.description == "postgres://rd@db:5432/revenue?sslmode=verify-ca&sslrootcert=/etc/revenuedot/db-ca.pem")
        #expect(tls.connectionParameters.contains { $0 == ("sslrootcert", "/etc/revenuedot/db-ca.pem") })
    }

    /// Each part is decoded once: a '%' written %25 stays a '%' (it was lost, and the password
    /// with it); an IPv6 host goes to libpq without its brackets.
    @Test func escapesAreDecodedOnceAndIPv6LosesItsBrackets() throws {
        let url = try PostgresURL("postgres://r%25d:a%25b%2540@[::1]:5433/my%20db", environment: [:])
        #expect(url.user == "r%d")
        #expect(url.password == "a%b%40")
        #expect(url.database == "my db")
        #expect(url.host == "::1")
        #expect(url.description == "postgres://r%d@[::1]:5433/my db")
        #expect(url.connectionParameters.contains { $0 == ("host", "::1") })
        #expect(url.connectionParameters.contains { $0 == ("application_name", "revenuedot") })
    }

    /// A password file written on Windows: its first line without the carriage return.
    @Test func aPasswordFileLineEndsBeforeItsCarriageReturn() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/password"
        try "from-windows\r\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try PostgresURL("postgres://u@h/d", passwordFile: file, environment: [:]).password == "from-windows")
    }

    /// The URL's password first, then the password file's first line, then PGPASSWORD; never shown.
    @Test func passwordFromTheURLThenTheFileThenTheEnvironment() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/password"
        try "from-file\nignored\n".write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ["PGPASSWORD": "from-environment"]
        #expect(try PostgresURL("postgres://u:inline@h/d", passwordFile: file, environment: environment).password == "inline")
        #expect(try PostgresURL("postgres://u@h/d", passwordFile: file, environment: environment).password == "from-file")
        #expect(try PostgresURL("postgres://u@h/d", environment: environment).password == "from-environment")
        let url = try PostgresURL("postgres://u:secret-word@h/d", environment: [:])
        #expect(!url.description.contains("secret-word"))
        #expect(!"\(url)".contains("secret-word"))
        let missing = #expect(throws: StoreError.self) {
            try PostgresURL("postgres://u@h/d", passwordFile: directory.path + "/absent", environment: [:])
        }
        #expect(missing?.message.contains("cannot be read") == true)
    }

    @Test(arguments: [
        ("sqlite:/var/lib/revenuedot.sqlite", "postgres://user:password@host:port/database"),
        ("postgres://h/d", "names no user"),
        ("postgres://u@/d", "names no host"),
        ("postgres://u@h", "names no database"),
        ("postgres://u@h/", "names no database"),
        ("postgres://u@h:0/d", "port 0"),
        ("postgres://u@h/d?sslmode=sometimes", "sslmode="),
        ("postgres://u@h/d?connect_timeout=1", "not connect_timeout=1"),
        ("postgres://u@h/d?sslmode=verify-full&sslmode=disable", "gives sslmode twice"),
        ("postgres://u@h/d?sslmode=disable&sslrootcert=/etc/ca.pem", "never uses it"),
        ("postgres://u@h/d#part", "holds a '#'"),
        ("postgres://u@h/d/", "holds a '/'"),
    ])
    func refusesWithOneLine(text: String, expected: String) {
        let error = #expect(throws: StoreError.self) { try PostgresURL(text, environment: [:]) }
        #expect(error?.code == .invalid)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("\n") == false)
    }
}
