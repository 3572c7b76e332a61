import Foundation

/// What a command asks of a path it was given before it writes there.
enum Paths {
    /// Whether `path` is a directory (or a symbolic link to one).
    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
