import Foundation
import Glibc

/// Who besides this server's user can change a file that RevenueDot trusts (a secret, a trust
/// anchor), by other means than its mode: owning it, or being able to put another file in its
/// place through a folder or a symbolic link on its way.
///
/// The path is walked one name at a time, as the system resolves it, every link followed: each
/// folder passed through and each link must be owned by root or the user RevenueDot runs as, and
/// no folder may be writable by others, nor by a group other than its owner's own (the private
/// group a umask of 002 gives), unless its sticky bit lets only an entry's owner rename or remove
/// it (`/tmp`). The file itself must be owned by root or that user.
package enum FileControl {
    /// What lets another user change the file at `path`, with the fix; nil when nothing does,
    /// or when it cannot be read (its reader says so).
    package static func problem(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var walk = Walk()
        if let problem = walk.check(absolute, of: path) { return problem }
        guard trusted(status.st_uid) else {
            return "\(path) is owned by \(user(status.st_uid)), who could change it: make it root's (readable by "
                + "the service's group) or \(user(geteuid()))'s"
        }
        return nil
    }

    /// A walk of paths, name by name, through the links they hold.
    struct Walk {
        /// Links followed so far: the system gives up after 40.
        var links = 0

        /// Checks every folder and link on the way to `path` (absolute); `shown` names it.
        mutating func check(_ path: String, of shown: String) -> String? {
            var folder = "/"
            if let problem = folderProblem(folder, of: shown) { return problem }
            var names = path.split(separator: "/").map(String.init)
            while !names.isEmpty {
                let name = names.removeFirst()
                if name == "." { continue }
                if name == ".." {
                    folder = (folder as NSString).deletingLastPathComponent
                    continue
                }
                let next = folder == "/" ? "/" + name : folder + "/" + name
                var entry = stat()
                guard lstat(next, &entry) == 0 else { return nil }
                if entry.st_mode & S_IFMT == S_IFLNK {
                    links += 1
                    guard links <= 40, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: next) else {
                        return nil
                    }
                    guard trusted(entry.st_uid) else {
                        return "\(shown) is reached through the link \(next), owned by \(user(entry.st_uid)), who could "
                            + "point it elsewhere: make the link root's or \(user(geteuid()))'s"
                    }
                    // Resolved from the link's folder (or `/`), then the names after it.
                    let rest = target.split(separator: "/").map(String.init)
                    names = rest + names
                    if target.hasPrefix("/") {
                        folder = "/"
                    }
                    continue
                }
                guard !names.isEmpty else { return nil }
                folder = next
                if let problem = folderProblem(folder, of: shown) { return problem }
            }
            return nil
        }

        private func folderProblem(_ folder: String, of shown: String) -> String? {
            var info = stat()
            guard stat(folder, &info) == 0 else { return nil }
            guard trusted(info.st_uid) else {
                return "\(shown) is in \(folder), owned by \(user(info.st_uid)), who could put another file in its "
                    + "place: keep it in a folder owned by root or \(user(geteuid()))"
            }
            let mode = info.st_mode & 0o7777
            let othersWrite = mode & S_IWOTH != 0
            let groupWrite = mode & S_IWGRP != 0 && !isOwnersOwnGroup(info.st_gid, owner: info.st_uid)
            if othersWrite || groupWrite, mode & S_ISVTX == 0 {
                return "\(shown) is in \(folder), which other users can change (mode \(String(mode, radix: 8))) and "
                    + "so put another file in its place: run chmod go-w \(SecretFileModes.quoted(folder))"
            }
            return nil
        }
    }

    /// Root and the user RevenueDot runs as.
    static func trusted(_ uid: uid_t) -> Bool { uid == 0 || uid == geteuid() }

    /// Whether `gid` is the private group of `owner` (user private groups, as Debian and Ubuntu
    /// make them: its primary group, named as the user, naming no other member), so that group
    /// write on its folder (a umask of 002) lets no one else in.
    static func isOwnersOwnGroup(_ gid: gid_t, owner: uid_t) -> Bool {
        guard owner != 0, let account = getpwuid(owner), account.pointee.pw_gid == gid,
            let userName = account.pointee.pw_name.map({ String(cString: $0) }), let group = getgrgid(gid),
            let groupName = group.pointee.gr_name.map({ String(cString: $0) }), groupName == userName
        else { return false }
        var member = group.pointee.gr_mem
        while let pointer = member?.pointee {
            guard String(cString: pointer) == userName else { return false }
            member = member?.advanced(by: 1)
        }
        return true
    }

    /// A user's name, or its number when it has none.
    private static func user(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "user \(uid)" }
        return String(cString: name)
    }
}
