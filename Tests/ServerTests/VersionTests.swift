import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

/// Which RevenueDot runs: `--version`, `/health`, `/metrics`, and the changelog that goes with it.
@Suite struct VersionTests {
    @Test func versionNamesTheReleaseAndTheCommit() throws {
        let result = try runCLI(["--version"])
        #expect(result.status == 0)
        #expect(result.output == "revenuedot \(RevenueDotVersion.semantic) (commit \(RevenueDotVersion.commit))\n")
        // Built in a git checkout (as the tests are): 12 hex digits, marked when the tree differed.
        let commit = RevenueDotVersion.commit.replacingOccurrences(of: "-modified", with: "")
        #expect(commit.count == 12 && commit.allSatisfy(\.isHexDigit), "\(RevenueDotVersion.commit)")
        let semantic = #/^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$/#
        #expect(RevenueDotVersion.semantic.wholeMatch(of: semantic) != nil)
        // Anything after it is a mistake, not ignored.
        for arguments in [["version", "extra"], ["--version", "--bogus"]] {
            let refused = try runCLI(arguments)
            #expect(refused.status == 2, "\(refused.output)")
            #expect(refused.output == "revenuedot \(arguments[0]): takes nothing after it, not \(arguments[1])\n")
        }
    }

    @Test func healthAndMetricsSayWhichBuildAndNodeAnswered() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let health = try JSONValue(parsing: try connection.request("GET", "/health").body)
        #expect(health["status"]?.stringValue == "ok")
        #expect(health["version"]?.stringValue == RevenueDotVersion.semantic)
        #expect(health["commit"]?.stringValue == RevenueDotVersion.commit)
        #expect(health["node"]?.stringValue == service.node)
        // RevenueCat's `/v1/health`, which the SDK's diagnostics ask without a key, names none of them.
        let sdkHealth = try connection.request("GET", "/v1/health")
        #expect(sdkHealth.status == 200 && sdkHealth.text == #"{"status":"ok"}"#, "\(sdkHealth.text)")
        let metrics = String(decoding: try connection.request("GET", "/metrics").body, as: UTF8.self)
        #expect(
            metrics.contains(
                "revenuedot_build_info{version=\"\(RevenueDotVersion.semantic)\",commit=\"\(RevenueDotVersion.commit)\","
                    + "node=\"\(service.node)\"} 1\n"))
        #expect(metrics.contains("# TYPE revenuedot_build_info gauge\n"))
    }

    /// CHANGELOG.md's first release section is this build's version: a release is not made
    /// without saying what changed.
    @Test func theChangelogOpensWithThisVersion() throws {
        let changelog = try String(
            contentsOf: DeploymentFilesTests.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let first = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(first?.hasPrefix("## \(RevenueDotVersion.semantic)") == true, "\(first ?? "no section")")
        #expect(FileManager.default.fileExists(atPath: DeploymentFilesTests.packageRoot.appendingPathComponent("LICENSE").path))
    }
}
