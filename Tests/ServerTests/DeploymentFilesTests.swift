import Foundation
import HTTP
import Server
import Testing

/// `make install` and the files under `contrib/`, checked by the tools that read them:
/// `systemd-analyze verify` for the unit, `nginx -t` for the site (Debian's packages, which
/// `make test` installs).
@Suite struct DeploymentFilesTests {
    static let packageRoot = ChildServer.executable.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Runs `executable` with `arguments`; returns its status and everything it printed.
    static func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) throws -> (Int32, String) {
        try runProcess(executable, arguments, in: directory?.path)
    }

    /// `make install-files` into a fresh DESTDIR, with the debug binary.
    static func install(prefix: String = "/usr/local") throws -> URL {
        let root = TestDirectory("install").url
        let (status, output) = try run(
            "/usr/bin/make",
            [
                "-s", "install-files", "DESTDIR=\(root.path)", "PREFIX=\(prefix)",
                "INSTALL_BINARY=\(ChildServer.executable.path)",
            ], in: packageRoot)
        #expect(status == 0, "\(output)")
        return root
    }

    /// `systemd-analyze verify` of the installed unit inside `root`, with the system's own units
    /// copied in (the targets it names); what it printed: nothing when the unit is clean.
    static func verifyUnit(in root: URL, named name: String = "revenuedot.service") throws -> (Int32, String) {
        let units = root.appendingPathComponent("lib/systemd")
        try FileManager.default.createDirectory(at: units, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: units.appendingPathComponent("system").path) {
            try FileManager.default.copyItem(atPath: "/lib/systemd/system", toPath: units.appendingPathComponent("system").path)
        }
        return try run("/usr/bin/systemd-analyze", ["verify", "--root=\(root.path)", "/etc/systemd/system/\(name)"])
    }

    @Test func makeInstallPutsTheBinaryTheUnitAndTheExamplesInPlace() throws {
        let root = try Self.install()
        let binary = root.appendingPathComponent("usr/local/bin/revenuedot").path
        let mode = try FileManager.default.attributesOfItem(atPath: binary)[.posixPermissions] as? Int
        #expect(mode == 0o755)
        let (status, version) = try Self.run(binary, ["--version"])
        #expect(status == 0)
        #expect(version == "revenuedot \(RevenueDotVersion.description)\n")
        for file in [
            "etc/systemd/system/revenuedot.service", "usr/lib/sysusers.d/revenuedot.conf",
            "usr/local/share/revenuedot/nginx.conf",
        ] {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(file).path), "\(file)")
        }
    }

    @Test func theUnitPassesSystemdAnalyzeVerifyAsInstalled() throws {
        let root = try Self.install()
        let (status, output) = try Self.verifyUnit(in: root)
        #expect(status == 0, "\(output)")
        #expect(output.isEmpty, "\(output)")
        let unit = try String(contentsOf: root.appendingPathComponent("etc/systemd/system/revenuedot.service"), encoding: .utf8)
        for line in [
            "User=revenuedot", "ProtectSystem=strict", "StateDirectory=revenuedot", "Restart=on-failure",
            // A database not reachable at boot must not stop the restarts for good.
            "StartLimitIntervalSec=0",
            "ExecReload=/bin/kill -HUP $MAINPID",
            "ExecStart=/usr/local/bin/revenuedot serve --config /etc/revenuedot/revenuedot.json",
        ] {
            #expect(unit.split(separator: "\n").contains(Substring(line)), "\(line)")
        }
    }

    /// systemd's own exposure score of the unit (0 = fully sandboxed, 10 = not at all) stays at
    /// 1.5 or below: the sandbox is as tight as a server that listens and writes one folder allows.
    /// The same check refuses the unit with its system call filter and /proc settings taken out.
    @Test func systemdScoresTheSandboxTight() throws {
        let root = try Self.install()
        let unit = root.appendingPathComponent("etc/systemd/system/revenuedot.service")
        func score(_ path: String) throws -> (Int32, String) {
            try Self.run("/usr/bin/systemd-analyze", ["security", "--offline=yes", "--threshold=15", path])
        }
        let (status, report) = try score(unit.path)
        #expect(status == 0, "\(report.split(separator: "\n").last ?? "")")
        let loose = try String(contentsOf: unit, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("SystemCallFilter=") && !$0.hasPrefix("Proc") && !$0.hasPrefix("Private") }
            .joined(separator: "\n")
        let loosePath = root.appendingPathComponent("etc/systemd/system/loose.service")
        try loose.write(to: loosePath, atomically: true, encoding: .utf8)
        #expect(try score(loosePath.path).0 != 0)
    }

    /// The check can fail: a unit with a misspelt key, or a binary that is not there, is reported.
    @Test func systemdAnalyzeReportsABrokenUnit() throws {
        let root = try Self.install()
        let unit = root.appendingPathComponent("etc/systemd/system/revenuedot.service")
        let broken = try String(contentsOf: unit, encoding: .utf8).replacingOccurrences(
            of: "ProtectSystem=strict", with: "ProtectSystm=strict")
        try broken.write(to: root.appendingPathComponent("etc/systemd/system/broken.service"), atomically: true, encoding: .utf8)
        let (_, misspelt) = try Self.verifyUnit(in: root, named: "broken.service")
        #expect(misspelt.contains("ProtectSystm"), "\(misspelt)")
        try FileManager.default.removeItem(at: root.appendingPathComponent("usr/local/bin/revenuedot"))
        let (status, missing) = try Self.verifyUnit(in: root)
        #expect(status != 0, "\(missing)")
    }

    @Test func anotherPrefixMovesTheUnitsCommandsWithIt() throws {
        let root = try Self.install(prefix: "/opt/revenuedot")
        let unit = try String(contentsOf: root.appendingPathComponent("etc/systemd/system/revenuedot.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/opt/revenuedot/bin/revenuedot serve"))
        #expect(!unit.contains("/usr/local/bin/revenuedot"))
        let (status, output) = try Self.verifyUnit(in: root)
        #expect(status == 0 && output.isEmpty, "\(output)")
    }

    /// `nginx -t` of the site as shipped, with the test CA's certificate in place of the example's.
    static func nginxTest(site: String) throws -> (Int32, String) { try NginxSite(site: site).test() }

    static var shippedSite: String {
        get throws { try String(contentsOf: packageRoot.appendingPathComponent("contrib/nginx.conf"), encoding: .utf8) }
    }

    @Test func theNginxSitePassesNginxT() throws {
        let (status, output) = try Self.nginxTest(site: try Self.shippedSite)
        #expect(status == 0, "\(output)")
        let (broken, complaint) = try Self.nginxTest(
            site: try Self.shippedSite.replacingOccurrences(of: "proxy_pass", with: "proxy_passs"))
        #expect(broken != 0, "\(complaint)")
    }

    /// The site refuses what RevenueDot would refuse (http.maxBodyBytes by default), allows only
    /// TLS 1.2 and 1.3, and sends the notification path to the nodes.
    @Test func theNginxSiteMatchesRevenueDotsLimits() throws {
        let site = try Self.shippedSite
        let config = try ConfigLoader.parse(
            Data(#"{"apps": [{"id": "a", "bundleId": "com.example.a", "environments": ["Sandbox"]}]}"#.utf8),
            file: TestDirectory().path("c.json"))
        let limit = site.split(separator: "\n").first { $0.contains("client_max_body_size") }
        let megabytes = config.http.maxBodyBytes / (1 << 20)
        #expect(limit?.trimmingCharacters(in: .whitespaces) == "client_max_body_size \(megabytes)m;")
        #expect(site.contains("ssl_protocols TLSv1.2 TLSv1.3;"))
        // Ingest is idempotent on notificationUUID: a notification a node could not take goes to the next.
        let start = try #require(site.range(of: "location /v1/apple/notifications/ {"))
        let block = site[start.upperBound...].prefix { $0 != "}" }
        #expect(block.contains("\n        proxy_next_upstream error timeout http_502 http_503 non_idempotent;\n"))
        #expect(block.contains("\n        proxy_pass http://revenuedot;\n"))
        // Apple's network alone, when the operator turns it on: off as shipped.
        #expect(block.contains("\n        # allow 17.0.0.0/8;\n        # deny all;\n"))
        // A notification (10-20 KiB) is buffered in memory: nginx's default spooled each to disk.
        #expect(site.contains("client_body_buffer_size 64k;"))
    }

    /// systemd's stop timeout outlasts the longest graceful stop (the HTTP drain, then storage, a
    /// second more): a stop it killed would lose its line and exit status.
    @Test func theUnitWaitsOutTheLongestStop() throws {
        let unit = try String(
            contentsOf: Self.packageRoot.appendingPathComponent("contrib/revenuedot.service"), encoding: .utf8)
        let line = unit.split(separator: "\n").first { $0.hasPrefix("TimeoutStopSec=") }
        let seconds = line.flatMap { Int($0.dropFirst("TimeoutStopSec=".count).dropLast()) }
        let longest = Int(HTTPServer.drainSeconds) + Int(RevenueDotService.storageShutdownTimeout.components.seconds) + 1
        #expect(line?.hasSuffix("s") == true && (seconds ?? 0) > longest, "\(line ?? "no TimeoutStopSec")")
    }
}
