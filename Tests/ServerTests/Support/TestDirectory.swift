import Foundation

/// A fresh directory under the system temporary directory, for one test's files.
struct TestDirectory {
    let url: URL

    init(_ name: String = "revenuedot") {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to a file readable by its owner only, as `serve` wants configurations and keys.
    func write(_ name: String, _ text: String) throws -> String {
        let path = path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }
}
