import Foundation
import LoopbackClient
import Testing

@testable import Server

/// `contrib/nginx.conf` run by nginx in front of a server on loopback ports, as a client on the
/// internet meets it: over TLS, what is proxied, what is refused, and what `/health` tells.
@Suite(.enabled(if: TestTool.runs("/usr/sbin/nginx"), "needs nginx"))
struct NginxSiteTests {
    @Test func theSiteProxiesTheAPIAndTellsAStrangerOnlyWhetherItIsHealthy() throws {
        let service = try ServerFixture().startService()
        var stopped = false
        defer { if !stopped { service.shutdown() } }
        let (tlsPort, plainPort) = (try unusedLoopbackPort(), try unusedLoopbackPort())
        let site = try NginxSite(
            site: NginxSite.onLoopback(
                try DeploymentFilesTests.shippedSite, upstreamPort: service.port, tlsPort: tlsPort, plainPort: plainPort))
        let nginx = try site.run()
        defer {
            nginx.interrupt()
            nginx.waitUntilExit()
        }
        let tls = try TLSClientContext(caFile: try TestCertificates.shared().caFile)
        func get(_ path: String, headers: [String: String] = [:]) throws -> LoopbackResponse {
            try LoopbackConnection(port: tlsPort, timeoutSeconds: 10, tls: tls).request("GET", path, headers: headers)
        }
        let listening = poll(seconds: 10) { (try? get("/health")) != nil }
        #expect(listening, "\((try? String(contentsOfFile: site.directory.path("error.log"), encoding: .utf8)) ?? "")")
        guard listening else { return }

        // The node's own /health names its build; through the site, only its status.
        let direct = try LoopbackConnection(port: service.port).request("GET", "/health")
        #expect(direct.status == 200 && direct.text.contains(RevenueDotVersion.semantic))
        let health = try get("/health")
        #expect(health.status == 200)
        #expect(health.text == "{\"status\":\"ok\"}\n")
        #expect(health.headers["content-type"] == "application/json")
        #expect(!health.text.contains(RevenueDotVersion.semantic))
        // The subrequest's location, /metrics and anything else are not there.
        for path in ["/.revenuedot-health", "/metrics", "/", "/docs"] {
            #expect(try get(path).status == 404, "\(path)")
        }
        // The API and Apple's path reach the node, which answers as it does directly.
        let subscriber = try get("/v1/subscribers/olga")
        #expect(subscriber.status == 401 && subscriber.text.contains("7225"), "\(subscriber.text)")
        let notification = try LoopbackConnection(port: tlsPort, tls: tls).request(
            "POST", "/v1/apple/notifications/demo", headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
        #expect(notification.status == 400, "\(notification.text)")
        // Plain http is sent to https, but for certbot's webroot challenges.
        let plain = try LoopbackConnection(port: plainPort).request("GET", "/health")
        #expect(plain.status == 301)
        // Readable by nginx's workers, which run as another user when nginx is started as root.
        let challenges = site.directory.path("webroot/.well-known/acme-challenge")
        try FileManager.default.createDirectory(
            atPath: challenges, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for folder in [site.directory.url.deletingLastPathComponent().path, site.directory.url.path] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
        }
        #expect(
            FileManager.default.createFile(
                atPath: challenges + "/token-1", contents: Data("token-1.thumbprint".utf8), attributes: [.posixPermissions: 0o644]
            ))
        let challenge = try LoopbackConnection(port: plainPort).request("GET", "/.well-known/acme-challenge/token-1")
        #expect(challenge.status == 200 && challenge.text == "token-1.thumbprint", "\(challenge.status) \(challenge.text)")

        // One address asking the API faster than its limit (here one a minute, bursts of 5) is
        // answered 503, which the SDK takes as the server down (a 4xx as final); Apple's notifications are not limited.
        let burst = try LoopbackConnection(port: tlsPort, timeoutSeconds: 10, tls: tls)
        var statuses: [Int: Int] = [:]
        for _ in 0..<10 { statuses[try burst.request("GET", "/v1/subscribers/olga").status, default: 0] += 1 }
        #expect(statuses[503] ?? 0 >= 3 && statuses[401] ?? 0 >= 1, "\(statuses)")
        for _ in 0..<20 {
            let posted = try burst.request(
                "POST", "/v1/apple/notifications/demo", headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
            #expect(posted.status == 400)
        }

        // A node that does not answer is a 503, again without a word of which build it was.
        service.shutdown()
        stopped = true
        let down = try get("/health")
        #expect(down.status == 503)
        #expect(down.text == "{\"status\":\"unavailable\"}\n")
    }
}
