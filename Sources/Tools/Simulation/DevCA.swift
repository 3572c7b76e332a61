import AppStore
import Crypto
import Foundation
import Server

/// A local App Store certificate chain kept under `.revenuedot/dev-ca/`, made once and reused,
/// so local servers can trust what `revenuedot` signs by adding its root to `rootCertificates`.
package struct DevCA: Sendable {
    package let directory: URL
    package let chain: TestChain

    package var rootPath: String { directory.appendingPathComponent("root.pem").path }

    private static let files = [
        "root.pem", "intermediate.pem", "leaf.pem", "root-key.pem", "intermediate-key.pem", "leaf-key.pem",
    ]

    /// Loads the chain under `directory`, or makes and saves one when there is none.
    package static func loadOrCreate(in directory: URL) throws -> DevCA {
        let manager = FileManager.default
        if manager.fileExists(atPath: directory.appendingPathComponent("root.pem").path) {
            return try load(from: directory)
        }
        do { try PrivateFile.createDirectory(directory.path) } catch {
            throw ConfigError(file: directory.path, key: "", problem: "\(error)")
        }
        let chain = try TestChain(name: "RevenueDot Dev")
        let contents = [
            chain.root.pem, chain.intermediate.pem, chain.leaf.pem, try chain.rootKey.pkcs8PEM(),
            try chain.intermediateKey.pkcs8PEM(), try chain.leafKey.pkcs8PEM(),
        ]
        for (name, text) in zip(files, contents) {
            let path = directory.appendingPathComponent(name).path
            do {
                try PrivateFile.write(Data(text.utf8), to: path, exclusive: false)
            } catch {
                throw ConfigError(file: path, key: "", problem: "cannot write the dev CA file: \(error)")
            }
        }
        return DevCA(directory: directory, chain: chain)
    }

    /// Loads a saved chain.
    package static func load(from directory: URL) throws -> DevCA {
        func text(_ name: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigError(
                    file: path, key: "", problem: "missing from the dev CA; delete \(directory.path) to make a new one")
            }
            return String(decoding: data, as: UTF8.self)
        }
        let chain = TestChain(
            root: try Certificate.parsePEM(try text("root.pem"))[0],
            intermediate: try Certificate.parsePEM(try text("intermediate.pem"))[0],
            leaf: try Certificate.parsePEM(try text("leaf.pem"))[0], rootKey: try ECPrivateKey(pem: try text("root-key.pem")),
            intermediateKey: try ECPrivateKey(pem: try text("intermediate-key.pem")),
            leafKey: try ECPrivateKey(pem: try text("leaf-key.pem")))
        return DevCA(directory: directory, chain: chain)
    }
}
