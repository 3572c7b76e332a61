import Foundation
import Glibc

/// Who besides this server's user can change a file that RevenueDot trusts (a secret, a trust
/// anchor), by other means than its mode: owning it, or being able to put another file in its
/// place through a folder on its way.
///
/// A file must be owned by root or by the user RevenueDot runs as; each folder from `/` to it,
/// both along the path as given and along the one its symbolic links resolve to, must be owned
/// by root or that user and be writable by nobody else, unless its sticky bit lets only a
/// file's owner rename or remove it (`/tmp`), and the file is that user's or root's.
package enum FileControl {
    /// What lets another user change the file at `path`, with the fix; nil when nothing does,
    /// or when it cannot be read (its reader says so).
    package static func problem(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let me = geteuid()
        if status.st_uid != 0, status.st_uid != me {
            return "\(path) is owned by \(user(status.st_uid)), not by root or \(user(me)), the user RevenueDot runs as: "
                + "run chown \(user(me)) \(SecretFileModes.quoted(path))"
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var folders = ancestors(of: absolute)
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            for folder in ancestors(of: String(cString: resolved)) where !folders.contains(folder) { folders.append(folder) }
        }
        for folder in folders {
            var info = stat()
            guard stat(folder, &info) == 0 else { continue }
            if info.st_uid != 0, info.st_uid != me {
                return "\(path) is in \(folder), owned by \(user(info.st_uid)), who could put another file in its place: "
                    + "keep it in a folder owned by root or \(user(me))"
            }
            let mode = info.st_mode & 0o7777
            if mode & (S_IWGRP | S_IWOTH) != 0, mode & S_ISVTX == 0 {
                return "\(path) is in \(folder), which other users can change (mode \(String(mode, radix: 8))) and so put "
                    + "another file in its place: run chmod go-w \(SecretFileModes.quoted(folder))"
            }
        }
        return nil
    }

    /// The folders from `/` down to the one holding `path`, with `.` and `..` taken away.
    static func ancestors(of path: String) -> [String] {
        var parts: [String] = []
        for part in path.split(separator: "/").dropLast() {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(String(part))
            }
        }
        return ["/"] + parts.indices.map { "/" + parts[...$0].joined(separator: "/") }
    }

    /// A user's name, or its number when it has none.
    private static func user(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "user \(uid)" }
        return String(cString: name)
    }
}
