import AppStore
import Foundation
import LoopbackClient
import Synchronization

let bundleId = "com.example.app"
let appAppleId: Int64 = 1234

func argument(_ name: String, _ arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("revenuedot-bench: \(message)\n".utf8))
    exit(2)
}

func json(_ object: [String: Any]) throws -> Data {
    try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
}

/// The non-empty lines of a file, split with memchr (Data.split is slow on large files).
func lines(_ path: String) throws -> [Data] {
    let file = try Data(contentsOf: URL(fileURLWithPath: path))
    return file.withUnsafeBytes { buffer -> [Data] in
        guard let base = buffer.baseAddress else { return [] }
        var result: [Data] = []
        var start = 0
        while start < buffer.count {
            let end = memchr(base + start, 0x0A, buffer.count - start).map { UnsafeRawPointer($0) - base } ?? buffer.count
            if end > start { result.append(Data(bytes: base + start, count: end - start)) }
            start = end + 1
        }
        return result
    }
}
