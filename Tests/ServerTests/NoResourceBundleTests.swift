import Foundation
import Testing

/// The server's binary runs wherever it is copied. SwiftPM looks for a module's resource bundle
/// beside the executable or at the absolute path of the build that made it, and `Bundle.module`
/// stops the process when neither is there: an installed binary, or one copied into a container
/// image, would stop at start once its build directory was gone. So no module the binary is made
/// of has resources (Apple's root certificate is compiled in: `AppleRootCertificates`).
@Suite struct NoResourceBundleTests {
    /// The package's root, from this file's path (Tests/RevenueDotTests/...).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func noSourceReadsAResourceBundle() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var swiftFiles = 0
        var readers: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            swiftFiles += 1
            if try String(contentsOf: file, encoding: .utf8).contains("Bundle.module") { readers.append(file.path) }
        }
        #expect(swiftFiles > 50, "found the sources at \(sources.path)")
        #expect(readers.isEmpty, "\(readers)")
    }

    @Test func noProductTargetDeclaresResources() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // Everything before the test targets: the product's modules, C adapters and tools.
        let products = try #require(manifest.components(separatedBy: ".testTarget(").first)
        #expect(products.contains(".target("))
        #expect(!products.contains("resources:"))
    }
}
