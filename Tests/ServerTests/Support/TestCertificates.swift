import Crypto
import Foundation

/// A throwaway CA and server certificates it signs, made with the `openssl` command once per test
/// process: what an https receiver on a loopback port serves and what the sender trusts.
struct TestCertificates: Sendable {
    /// A server's certificate and its private key (PEM files).
    struct Server: Sendable {
        var certificate: String
        var key: String
    }

    /// The CA's certificate (PEM), for `WebhookConfig.caFile`.
    let caFile: String
    /// For `localhost` and `127.0.0.1` (subject alternative names).
    let localhost: Server
    /// For `other.invalid` only: a certificate from the trusted CA for another host.
    let otherHost: Server

    /// The certificates of this test process, made on first use.
    static func shared() throws -> TestCertificates { try made.get() }

    private static let made = Result { try TestCertificates(directory: TestDirectory("tls")) }

    private init(directory: TestDirectory) throws {
        caFile = directory.path("ca.pem")
        let caKey = directory.path("ca.key")
        try Self.openssl(
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", caKey,
            "-out", caFile, "-days", "2", "-subj", "/CN=RevenueDot Test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        // Whatever the umask: a trust anchor others can change is refused.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: caFile)
        localhost = try Self.server("localhost", altNames: "DNS:localhost,IP:127.0.0.1", in: directory)
        otherHost = try Self.server("other.invalid", altNames: "DNS:other.invalid", in: directory)
    }

    /// A key and a certificate the CA in `directory` signs for `altNames`.
    private static func server(_ name: String, altNames: String, in directory: TestDirectory) throws -> Server {
        let server = Server(certificate: directory.path("\(name).pem"), key: directory.path("\(name).key"))
        let request = directory.path("\(name).csr")
        let extensions = try directory.write(
            "\(name).ext",
            "subjectAltName=\(altNames)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        try openssl(
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", server.key,
            "-out", request, "-subj", "/CN=\(name)")
        try openssl(
            "x509", "-req", "-in", request, "-CA", directory.path("ca.pem"),
            "-CAkey", directory.path("ca.key"), "-set_serial", "2", "-days", "2",
            "-extfile", extensions, "-out", server.certificate)
        return server
    }

    private static func openssl(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw OpenSSLCommandError(arguments: arguments, output: text) }
    }
}

struct OpenSSLCommandError: Error, CustomStringConvertible {
    var arguments: [String]
    var output: String
    var description: String { "openssl \(arguments.joined(separator: " ")) failed: \(output)" }
}
