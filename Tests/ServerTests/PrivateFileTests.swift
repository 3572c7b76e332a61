import Foundation
import Testing

@testable import Server
@testable import Tools

/// `PrivateFile`: how `init` writes the configuration (API keys) and the dev CA (private keys).
@Suite struct PrivateFileTests {
    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
    }

    @Test func aNewFileIsTheOwnersOnly() throws {
        let directory = TestDirectory()
        let path = directory.path("secret.json")
        try PrivateFile.write(Data("{\"secretApiKey\": \"sk\"}".utf8), to: path, exclusive: true)
        #expect(try mode(path) == 0o600)
        #expect(FileManager.default.contents(atPath: path) == Data("{\"secretApiKey\": \"sk\"}".utf8))
    }

    /// A file already there, readable by others, is narrowed to 0600 and its contents replaced.
    @Test func anExistingFileIsNarrowedAndReplaced() throws {
        let directory = TestDirectory()
        let path = directory.path("key.pem")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old and longer".utf8)))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try PrivateFile.write(Data("new".utf8), to: path, exclusive: false)
        #expect(try mode(path) == 0o600)
        #expect(FileManager.default.contents(atPath: path) == Data("new".utf8))
    }

    @Test func exclusiveRefusesAFileAlreadyThere() throws {
        let directory = TestDirectory()
        let path = directory.path("revenuedot.json")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("mine".utf8)))
        let error = #expect(throws: PrivateFile.WriteError.self) {
            try PrivateFile.write(Data("demo".utf8), to: path, exclusive: true)
        }
        #expect(error?.description.contains("File exists") == true)
        #expect(FileManager.default.contents(atPath: path) == Data("mine".utf8))
    }

    /// A symbolic link planted where the secret goes is never followed: replaced when replacing
    /// is allowed, refused (even dangling) when the file must be new. Its target stays as it was.
    @Test func aSymbolicLinkIsNotFollowed() throws {
        let directory = TestDirectory()
        let target = directory.path("elsewhere")
        #expect(FileManager.default.createFile(atPath: target, contents: Data("untouched".utf8)))
        let link = directory.path("leaf-key.pem")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try PrivateFile.write(Data("key".utf8), to: link, exclusive: false)
        #expect(FileManager.default.contents(atPath: target) == Data("untouched".utf8))
        #expect(FileManager.default.contents(atPath: link) == Data("key".utf8))
        #expect(try mode(link) == 0o600)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == nil, "now a file of its own")

        let dangling = directory.path("revenuedot.json")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: directory.path("nowhere"))
        #expect(throws: PrivateFile.WriteError.self) { try PrivateFile.write(Data("{}".utf8), to: dangling, exclusive: true) }
        #expect(!FileManager.default.fileExists(atPath: directory.path("nowhere")))
    }

    /// A refused or failed write leaves no file of its own behind.
    @Test func aFailedWriteLeavesNothingBehind() throws {
        let directory = TestDirectory()
        let path = directory.path("revenuedot.json")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("mine".utf8)))
        #expect(throws: PrivateFile.WriteError.self) { try PrivateFile.write(Data("demo".utf8), to: path, exclusive: true) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["revenuedot.json"])
        #expect(throws: PrivateFile.WriteError.self) {
            try PrivateFile.write(Data("x".utf8), to: directory.path("missing/revenuedot.json"), exclusive: false)
        }
    }

    /// `init` stopped by a full disk (here a file size limit of 200 bytes: every file it writes
    /// is longer) leaves no half-written dev CA or configuration, so the next `init` makes them.
    /// Before, a truncated root.pem made every later run fail to parse it, and a truncated
    /// configuration was kept as "exists".
    @Test func initStoppedByAFullDiskCanBeRunAgain() throws {
        let directory = TestDirectory("private-init")
        let config = directory.path("revenuedot.json")
        let dev = directory.path(".revenuedot/dev-ca")
        let limited = try runCLI(["init", "--config", config], fileSizeLimitBytes: 200)
        #expect(limited.status != 0)
        #expect(limited.output.contains("File too large"), "\(limited.output)")
        #expect(!FileManager.default.fileExists(atPath: config))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dev)) ?? [] == [])

        #expect(try runCLI(["init", "--config", config]).status == 0)
        try FileManager.default.removeItem(atPath: config)
        #expect(try runCLI(["init", "--config", config], fileSizeLimitBytes: 200).status != 0)
        #expect(!FileManager.default.fileExists(atPath: config), "no truncated configuration")
        #expect(try runCLI(["init", "--config", config]).status == 0)
        #expect(try ConfigLoader.load(path: config).apps.map(\.id) == ["demo"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dev).allSatisfy { !$0.hasSuffix(".tmp") })
    }
}
