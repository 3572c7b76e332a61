import Foundation
import Glibc

/// `contrib/nginx.conf`, placed for a test: the test CA's `localhost` certificate in place of the
/// example's, inside a main configuration whose every path is the test's own (so no root is
/// needed), and with `listen`/`upstream` addresses a test may move to loopback ports.
struct NginxSite {
    let directory = TestDirectory("nginx")
    let mainPath: String

    init(site: String) throws {
        let certificates = try TestCertificates.shared()
        let placed =
            site
            .replacingOccurrences(
                of: "/etc/letsencrypt/live/revenuedot.example.com/fullchain.pem", with: certificates.localhost.certificate
            )
            .replacingOccurrences(
                of: "/etc/letsencrypt/live/revenuedot.example.com/privkey.pem", with: certificates.localhost.key
            )
            .replacingOccurrences(of: "root /var/www/letsencrypt;", with: "root \(directory.path("webroot"));")
            // A rate a test reaches in a few requests, however slow the machine.
            .replacingOccurrences(of: "rate=50r/s", with: "rate=1r/m").replacingOccurrences(of: "burst=100", with: "burst=5")
        let sitePath = try directory.write("site.conf", placed)
        let temporary = directory.path("tmp")
        mainPath = try directory.write(
            "main.conf",
            """
            pid \(directory.path("nginx.pid"));
            error_log stderr;
            events {}
            http {
                client_body_temp_path \(temporary);
                proxy_temp_path \(temporary);
                fastcgi_temp_path \(temporary);
                uwsgi_temp_path \(temporary);
                scgi_temp_path \(temporary);
                access_log off;
                include \(sitePath);
            }
            """)
    }

    /// The shipped site with its nodes at `upstreamPort` and its two servers on loopback ports
    /// (TLS on `tlsPort`, the redirect on `plainPort`), IPv4 only.
    static func onLoopback(_ site: String, upstreamPort: UInt16, tlsPort: UInt16, plainPort: UInt16) -> String {
        site.replacingOccurrences(
            of: "server 127.0.0.1:8080 max_fails=0;", with: "server 127.0.0.1:\(upstreamPort) max_fails=0;"
        )
        .replacingOccurrences(of: "listen 443 ssl http2;", with: "listen 127.0.0.1:\(tlsPort) ssl http2;")
        .replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(plainPort);")
        .replacingOccurrences(of: "    listen [::]:443 ssl http2;\n", with: "")
        .replacingOccurrences(of: "    listen [::]:80;\n", with: "")
    }

    /// `nginx -t`: its status and what it printed.
    func test() throws -> (Int32, String) {
        try runProcess("/usr/sbin/nginx", ["-t", "-q", "-p", directory.url.path, "-e", "stderr", "-c", mainPath])
    }

    /// Starts nginx in the foreground; the caller terminates it (SIGQUIT: a graceful stop).
    func run() throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", directory.url.path, "-e", "stderr", "-c", mainPath, "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: try directory.write("error.log", ""))
        try process.run()
        return process
    }
}

/// A loopback TCP port nothing listens on now (the system's choice for a socket bound to port 0).
func unusedLoopbackPort() throws -> UInt16 {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw POSIXError(.EMFILE) }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
        }
    }
    guard bound else { throw POSIXError(.EADDRINUSE) }
    return UInt16(bigEndian: address.sin_port)
}
