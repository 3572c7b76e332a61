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

    /// Loads the chain under `directory`, or makes and saves one when there is none. Processes
    /// that start at once (`simulate` stories, `init`) take turns making it, under a lock beside
    /// the directory: one makes it, the others load that one. A chain left unfinished (a full disk)
    /// has no `root.pem`, and is made again.
    package static func loadOrCreate(in directory: URL) throws -> DevCA {
        let root = directory.appendingPathComponent("root.pem").path
        if FileManager.default.fileExists(atPath: root) { return try load(from: directory) }
        let lock: LockedFile
        do {
            try PrivateFile.createDirectory(directory.path)
            // Beside the directory, which holds the chain alone.
            lock = try LockedFile(path: directory.path + ".lock")
        } catch {
            throw ConfigError(file: directory.path, key: "", problem: "\(error)")
        }
        defer { withExtendedLifetime(lock) {} }
        if FileManager.default.fileExists(atPath: root) { return try load(from: directory) }
        let chain = try TestChain(name: "RevenueDot Dev")
        // `root.pem` last, so that once it is there the chain is whole.
        let files = [
            ("intermediate.pem", chain.intermediate.pem), ("leaf.pem", chain.leaf.pem),
            ("root-key.pem", try chain.rootKey.pkcs8PEM()), ("intermediate-key.pem", try chain.intermediateKey.pkcs8PEM()),
            ("leaf-key.pem", try chain.leafKey.pkcs8PEM()), ("root.pem", chain.root.pem),
        ]
        for (name, text) in files {
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
