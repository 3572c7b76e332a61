import Foundation
import Testing

@testable import RevenueDot

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

    /// A symbolic link planted where the secret goes is not followed.
    @Test func aSymbolicLinkIsRefused() throws {
        let directory = TestDirectory()
        let target = directory.path("elsewhere")
        #expect(FileManager.default.createFile(atPath: target, contents: Data("untouched".utf8)))
        let link = directory.path("leaf-key.pem")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: PrivateFile.WriteError.self) { try PrivateFile.write(Data("key".utf8), to: link, exclusive: false) }
        #expect(FileManager.default.contents(atPath: target) == Data("untouched".utf8))
    }
}
