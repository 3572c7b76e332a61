import Foundation
import Glibc

/// `serve` refuses secrets that other users can read, or that anyone but their owner can change.
///
/// The configuration holds API keys, webhook secrets and signing secrets; an app's `.p8` key
/// signs requests to Apple in its name. Mode 0600 (or 0640, for a service group) is expected; a
/// file others may read, or that its group or others may write, is refused with the `chmod` that
/// fixes it. The files are checked as `serve` reads them, through symbolic links.
extension ConfigLoader {
    /// The configuration at `path` as `serve` takes it, at start and at each reload (and
    /// `check-config` checks it): loaded, and its secret files private (`SecretFileModes`).
    package static func loadForServing(path: String) throws(ConfigError) -> RevenueDotConfig {
        let config = try load(path: path)
        try SecretFileModes.check(config)
        return config
    }
}

package enum SecretFileModes {
    /// Permission bits that must be clear: read for others, write for group and others.
    package static let forbidden: mode_t = S_IROTH | S_IWOTH | S_IWGRP

    /// Throws for the first secret file of `config` whose mode lets others in.
    package static func check(_ config: RevenueDotConfig) throws(ConfigError) {
        try check(config.file, holding: "API keys and secrets", in: config.file, key: "")
        if let passwordFile = config.databasePasswordFile {
            try check(passwordFile, holding: "the database's password", in: config.file, key: "database.passwordFile")
        }
        for (index, app) in config.apps.enumerated() {
            guard let key = app.inAppPurchaseKey else { continue }
            try check(
                key.privateKeyPath, holding: "the app's In-App Purchase key", in: config.file,
                key: "apps[\(index)].inAppPurchaseKey.privateKeyPath")
        }
    }

    private static func check(_ path: String, holding what: String, in file: String, key: String) throws(ConfigError) {
        if let problem = problem(path, holding: what) { throw ConfigError(file: file, key: key, problem: problem) }
    }

    /// What is wrong with the mode of the secret file at `path`, with the `chmod` that fixes it;
    /// nil when only its owner (and group, to read) can get at it, and nobody else can change it
    /// by owning it or a folder on its way (`FileControl`), or when it cannot be read (its
    /// reader says so).
    package static func problem(_ path: String, holding what: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let mode = status.st_mode & 0o7777
        guard mode & forbidden != 0 else { return FileControl.problem(path) }
        let who = mode & S_IROTH != 0 ? "is readable by other users" : "can be changed by other users"
        return "\(path) \(who) (mode \(String(mode, radix: 8))) and holds \(what): run chmod 600 \(quoted(path))"
    }

    /// What is wrong with the mode of the trust anchor at `path` (anyone who can change it can
    /// make RevenueDot accept what they sign), with the `chmod` that fixes it; nil when only its
    /// owner can change it, by its mode, its owner and its folders (`FileControl`), or when it
    /// cannot be read (its reader says so). Others may read it.
    package static func trustProblem(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let mode = status.st_mode & 0o7777
        guard mode & (S_IWGRP | S_IWOTH) != 0 else { return FileControl.problem(path) }
        return "\(path) can be changed by other users (mode \(String(mode, radix: 8))) and decides what is trusted: "
            + "run chmod go-w \(quoted(path))"
    }

    /// `path` as one shell word.
    static func quoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "/._-+,:@".unicodeScalars.contains($0)
        }
        return plain ? path : "'" + path.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
