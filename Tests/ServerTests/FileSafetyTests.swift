import AppStore
import Crypto
import Foundation
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// What RevenueDot writes and reads on disk, against the real CLI: private whatever the umask,
/// secrets others can read refused, unsigned environments never beside Production, and a file
/// size limit answered like a full disk.
@Suite("Files, modes and limits")
struct FileSafetyTests {
    let fixture: ServerFixture

    init() throws {
        fixture = try ServerFixture()
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
    }

    func chmod(_ path: String, _ mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    func serve(_ path: String) throws -> (status: Int32, line: String) {
        let result = try runCLI(["serve", "--config", path])
        return (result.status, result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `revenuedot ARGUMENTS` run with umask 0000, from `directory`.
    func runWithUmaskZero(_ arguments: [String], in directory: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments =
            ["-c", "import os, sys; os.umask(0); os.execv(sys.argv[1], sys.argv[1:])", ChildServer.executable.path]
            + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func initUnderUmaskZeroMakesPrivateDirectoriesAndFiles() throws {
        let directory = TestDirectory("umask-zero")
        #expect(try runWithUmaskZero(["init", "--config", "revenuedot.json"], in: directory.url.path) == 0)
        #expect(try mode(directory.path(".revenuedot")) == 0o700)
        #expect(try mode(directory.path(".revenuedot/dev-ca")) == 0o700)
        for file in ["revenuedot.json", ".revenuedot/sample-notification.json", ".revenuedot/dev-ca/root-key.pem"] {
            #expect(try mode(directory.path(file)) == 0o600, "\(file)")
        }
    }

    @Test func initWritesRandomAPIKeys() throws {
        var keys: [String] = []
        for _ in 0..<2 {
            let directory = TestDirectory("random-keys")
            #expect(try runCLI(["init", "--config", directory.path("revenuedot.json")]).status == 0)
            let config = try ConfigLoader.load(path: directory.path("revenuedot.json"))
            let app = try #require(config.app("demo"))
            let secret = try #require(app.secretApiKey)
            let publishable = try #require(app.publicApiKey)
            #expect(secret.hasPrefix("sk_") && secret.count == 35 && publishable.hasPrefix("appl_") && publishable.count == 37)
            keys += [secret, publishable]
        }
        #expect(Set(keys).count == 4)
        #expect(!keys.contains("sk_demo_secret") && !keys.contains("pk_demo_public"))
    }

    /// A directory named as the configuration is refused, and nothing is made beside it.
    @Test func initRefusesADirectoryForTheConfiguration() throws {
        let directory = TestDirectory("init-directory")
        let named = directory.path("configs")
        try FileManager.default.createDirectory(atPath: named, withIntermediateDirectories: true)
        let result = try runCLI(["init", "--config", named])
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("revenuedot init: --config \(named) is a directory"), "\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("")) == ["configs"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: named).isEmpty)
    }

    /// A configuration in a directory that does not exist is refused: a mistyped path leaves no
    /// folders behind.
    @Test func initRefusesAConfigurationInAMissingDirectory() throws {
        let directory = TestDirectory("init-missing")
        let missing = directory.path("typo/deeper")
        let result = try runCLI(["init", "--config", missing + "/revenuedot.json"])
        #expect(result.status == 2)
        #expect(
            result.output.hasPrefix(
                "revenuedot init: --config \(missing)/revenuedot.json: there is no directory \(missing); "
                    + "create it first (mkdir -p \(missing))\n"), "\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path("")).isEmpty)
    }

    /// An existing configuration is left as it is: a valid one quietly, one serve would refuse
    /// with serve's reason and exit 1, its bytes unchanged.
    @Test func initChecksTheConfigurationItLeavesAlone() throws {
        let directory = TestDirectory("init-existing")
        let config = directory.path("revenuedot.json")
        #expect(try runCLI(["init", "--config", config]).status == 0)
        let again = try runCLI(["init", "--config", config])
        #expect(again.status == 0 && again.output == "revenuedot init: \(config) exists; leaving it as it is\n")
        let broken = Data(#"{"listen": "127.0.0.1:8080", "apps": []}"#.utf8)
        try PrivateFile.write(broken, to: config, exclusive: false)
        let refused = try runCLI(["init", "--config", config])
        #expect(refused.status == 1)
        #expect(
            refused.output.hasPrefix("revenuedot init: \(config) exists and is left as it is, but serve would refuse it: "),
            "\(refused.output)")
        #expect(refused.output.split(separator: "\n").count == 1)
        #expect(FileManager.default.contents(atPath: config) == broken)
        // Refused before anything is made beside it.
        let elsewhere = TestDirectory("init-refused")
        let refusedConfig = try elsewhere.write("revenuedot.json", String(decoding: broken, as: UTF8.self))
        try chmod(refusedConfig, 0o600)
        #expect(try runCLI(["init", "--config", refusedConfig]).status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path("")) == ["revenuedot.json"])
    }

    @Test(arguments: [0o644, 0o604, 0o620, 0o602, 0o666])
    func serveRefusesAConfigOthersCanReadOrChange(mode: Int) throws {
        try chmod(fixture.configPath, mode)
        let (status, line) = try serve(fixture.configPath)
        #expect(status == 1)
        let message = try #require(startFailedMessage(line), "not one start.failed line: \(line)")
        #expect(message.hasPrefix("config \(fixture.configPath): \(fixture.configPath) "), "\(line)")
        #expect(message.hasSuffix("run chmod 600 \(fixture.configPath)"), "\(line)")
        #expect(message.contains(mode & 0o004 != 0 ? "is readable by other users" : "can be changed by other users"))
    }

    /// A folder on the way that others can change lets them put another configuration in its
    /// place: refused, naming the folder; with the sticky bit (`/tmp`) they cannot.
    @Test func serveRefusesAConfigInAFolderOthersCanChange() throws {
        let folder = (fixture.configPath as NSString).deletingLastPathComponent
        try chmod(folder, 0o777)
        defer { try? chmod(folder, 0o755) }
        let (status, line) = try serve(fixture.configPath)
        #expect(status == 1)
        let message = try #require(startFailedMessage(line), "not one start.failed line: \(line)")
        #expect(message.hasSuffix("run chmod go-w \(folder)"), "\(line)")
        try chmod(folder, 0o1777)
        #expect(SecretFileModes.problem(fixture.configPath, holding: "keys") == nil)
        #expect(SecretFileModes.trustProblem(fixture.configPath) == nil)
    }

    /// A trust root another user owns is theirs to change: refused, naming its owner.
    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func aTrustRootAnotherUserOwnsIsRefused() throws {
        let root = try fixture.directory.write("root.pem", "not read")
        try chmod(root, 0o644)
        #expect(chown(root, 65_534, 65_534) == 0)
        let problem = try #require(SecretFileModes.trustProblem(root))
        #expect(problem.contains("is owned by nobody, who could change it"), "\(problem)")
        #expect(chown(fixture.directory.path(""), 65_534, 65_534) == 0)
        #expect(chown(root, 0, 0) == 0)
        let folder = try #require(SecretFileModes.trustProblem(root))
        #expect(folder.contains("who could put another file in its place"), "\(folder)")
    }

    /// Every link on the way is followed as the system does: a folder holding a link in the
    /// middle of a chain counts as much as the last one's, and a link must be root's or ours.
    @Test func aFolderOnTheWayThroughLinksIsChecked() throws {
        let base = fixture.directory.path("links")
        let fileManager = FileManager.default
        for folder in ["etc", "opt/shared", "releases/v3"] {
            try fileManager.createDirectory(atPath: base + "/" + folder, withIntermediateDirectories: true)
        }
        let root = try fixture.directory.write("links/releases/v3/root.pem", "not read")
        try chmod(root, 0o644)
        try fileManager.createSymbolicLink(atPath: base + "/opt/shared/current", withDestinationPath: "../../releases/v3")
        try fileManager.createSymbolicLink(atPath: base + "/etc/root.pem", withDestinationPath: "../opt/shared/current/root.pem")
        #expect(SecretFileModes.trustProblem(base + "/etc/root.pem") == nil)
        try chmod(base + "/opt/shared", 0o777)
        let problem = try #require(SecretFileModes.trustProblem(base + "/etc/root.pem"))
        #expect(problem.contains("is in \(base)/opt/shared, which other users can change"), "\(problem)")
        try chmod(base + "/opt/shared", 0o755)
        if geteuid() == 0 {
            #expect(lchown(base + "/etc/root.pem", 65_534, 65_534) == 0)
            let link = try #require(SecretFileModes.trustProblem(base + "/etc/root.pem"))
            #expect(link.contains("is reached through the link \(base)/etc/root.pem"), "\(link)")
        }
    }

    /// A user's private group (a umask of 002 makes folders group-writable) lets no one else in;
    /// a group named otherwise, or root's, is not taken for one.
    @Test func aUsersPrivateGroupIsTheirOwn() {
        if let daemon = getpwuid(1), String(cString: daemon.pointee.pw_name) == "daemon", daemon.pointee.pw_gid == 1,
            let group = getgrgid(1), String(cString: group.pointee.gr_name) == "daemon", group.pointee.gr_mem.pointee == nil
        {
            #expect(FileControl.isOwnersOwnGroup(1, owner: 1))
        }
        #expect(!FileControl.isOwnersOwnGroup(0, owner: 0))
        #expect(
            !FileControl.isOwnersOwnGroup(65_534, owner: 65_534)
                || getgrgid(65_534).map { String(cString: $0.pointee.gr_name) } == "nobody")
    }

    @Test func serveAcceptsAConfigForItsGroupToRead() throws {
        try chmod(fixture.configPath, 0o640)
        let server = try ChildServer(configPath: fixture.configPath)
        server.kill(SIGTERM)
        #expect(server.wait() == 0)
    }

    @Test func serveRefusesAnInAppPurchaseKeyOthersCanRead() throws {
        let key = try fixture.directory.write("AuthKey_ABC123.p8", try ECPrivateKey(generating: .p256).pkcs8PEM())
        try chmod(key, 0o644)
        var text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        text = text.replacingOccurrences(
            of: #""secretApiKey": "sk_test_secret""#,
            with:
                #""inAppPurchaseKey": {"keyId": "ABC123", "issuerId": "i", "privateKeyPath": "\#(key)"}, "secretApiKey": "sk_test_secret""#
        )
        let config = try fixture.directory.write("with-key.json", text)
        let (status, line) = try serve(config)
        #expect(status == 1)
        #expect(line.contains("apps[0].inAppPurchaseKey.privateKeyPath: \(key) is readable by other users (mode 644)"), "\(line)")
        #expect(line.hasSuffix("run chmod 600 \(key)"))
    }

    /// The database's password file is a secret like the others; one that is missing names its key.
    @Test func serveRefusesADatabasePasswordFileOthersCanRead() throws {
        let fixture = try ServerFixture(database: #"{"url": "postgres://rd@127.0.0.1:1/rd", "passwordFile": "db-password"}"#)
        let password = fixture.directory.path("db-password")
        let missing = try serve(fixture.configPath)
        #expect(missing.status == 1)
        #expect(missing.line.contains("database.passwordFile: \(password) cannot be read"), "\(missing.line)")
        _ = try fixture.directory.write("db-password", "secret\n")
        try chmod(password, 0o644)
        let (status, line) = try serve(fixture.configPath)
        #expect(status == 1)
        #expect(line.contains("database.passwordFile: \(password) is readable by other users (mode 644)"), "\(line)")
        #expect(line.hasSuffix("run chmod 600 \(password)"))
    }

    @Test(arguments: ["Xcode", "LocalTesting"])
    func serveRefusesAnUnsignedEnvironmentBesideProduction(environment: String) throws {
        var text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        text = text.replacingOccurrences(
            of: #""environments": ["Sandbox", "Production"]"#,
            with: #""environments": ["Production", "Sandbox", "\#(environment)"]"#)
        let config = try fixture.directory.write("unsigned.json", text)
        let (status, line) = try serve(config)
        #expect(status == 1)
        #expect(
            startFailedMessage(line)?.hasPrefix(
                "config \(config): apps[0].environments: \(environment) data carries no App Store signature") == true,
            "\(line)")
        // Without Production it is the developer's choice.
        let sandbox = try fixture.directory.write(
            "sandbox-xcode.json",
            text.replacingOccurrences(
                of: #"["Production", "Sandbox", "\#(environment)"]"#, with: #"["Sandbox", "\#(environment)"]"#))
        #expect(
            try ConfigLoader.load(path: sandbox).apps[0].environments == [.sandbox, AppStoreEnvironment(rawValue: environment)])
    }

    /// `ulimit -f` reached: the write fails like a full disk (503, Apple retries), the server lives.
    @Test func aFileSizeLimitIsAFullDiskNotADeath() throws {
        let child = try ChildServer(configPath: fixture.configPath, fileSizeLimitKiB: 1024)
        let connection = try LoopbackConnection(port: child.port)
        var statuses: [Int] = []
        for _ in 0..<400 {
            let status = try connection.postNotification(fixture.signer.notification()).status
            statuses.append(status)
            if status == 503 { break }
        }
        #expect(statuses.last == 503, "\(Set(statuses))")
        #expect(child.process.isRunning)
        #expect(try connection.request("GET", "/health").status == 503)
        child.kill(SIGTERM)
        #expect(child.wait() == 0)
    }
}
