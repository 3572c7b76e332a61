import Foundation

/// Reading a file a configuration is, or names (root certificates, keys, CA files, rates): its
/// bytes, or the one reason they cannot be had.
package enum ConfigFile {
    /// The most such a file may hold: read no further, so `/dev/zero` (or a runaway pipe) is
    /// refused instead of filling memory.
    package static let maxBytes = 4 * 1_048_576

    /// Why a file cannot be read.
    package enum Problem: Error, Equatable {
        /// There is nothing at the path (or a part of it is not a directory).
        case missing
        /// Anything else, said as a clause: "it is a directory", "Permission denied".
        case other(String)

        /// The problem as a clause: "no such file", "it is a directory".
        package var reason: String {
            switch self {
            case .missing: "no such file"
            case .other(let reason): reason
            }
        }
    }

    /// The bytes of the file at `path`, read through one descriptor: a regular file or a pipe
    /// (`--config <(render-config)`), of at most `maxBytes`.
    package static func read(_ path: String) -> Result<Data, Problem> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            return .failure(code == ENOENT || code == ENOTDIR ? .missing : .other(String(cString: strerror(code))))
        }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.other(String(cString: strerror(errno)))) }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return .failure(.other("it is a directory"))
        case S_IFREG, S_IFIFO: break
        default: return .failure(.other("it is a device or a socket, not a file"))
        }
        do {
            let data = try file.read(upToCount: maxBytes + 1) ?? Data()
            guard data.count <= maxBytes else {
                return .failure(.other("it is larger than \(maxBytes / 1_048_576) MiB, which no such file is"))
            }
            return .success(data)
        } catch {
            return .failure(.other(error.localizedDescription))
        }
    }
}

extension ConfigReader {
    /// The bytes of the file at `path`, which member `name` names; one it cannot be read is
    /// "cannot read PATH: REASON", said of that member.
    package func contents(ofFile path: String, for name: String) throws(ConfigError) -> Data {
        switch ConfigFile.read(path) {
        case .success(let data): return data
        case .failure(let problem): throw fail(name, "cannot read \(path): \(problem.reason)")
        }
    }

    /// The contents of a file that decides whom RevenueDot trusts (a root or CA certificate),
    /// refused when its group or other users can change it (`SecretFileModes.trustProblem`).
    package func trustedContents(ofFile path: String, for name: String) throws(ConfigError) -> Data {
        let data = try contents(ofFile: path, for: name)
        if let problem = SecretFileModes.trustProblem(path) { throw fail(name, problem) }
        return data
    }
}
