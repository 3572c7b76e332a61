import Foundation

#if FUZZING
    import CLibFuzzer
#endif

/// The `main` of every fuzz target: libFuzzer's driver in a fuzzing build, a replay of saved
/// inputs in the normal build.
///
/// A fuzzing build (`scripts/fuzz.sh`) compiles with `-sanitize=fuzzer,address -DFUZZING`, and
/// `main` hands its arguments to `LLVMFuzzerRunDriver`, so every libFuzzer flag works. The normal
/// build has no libFuzzer: `main` runs each file given (or each file in each directory given)
/// through the same test function once, so a reproducer can be run under a debugger, and the
/// targets compile, and stay warning-free, with everything else.
public enum FuzzDriver {
    /// A target's `LLVMFuzzerTestOneInput`: returns 0, and traps on a bug.
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    public static func main(_ test: TestOneInput) -> Never {
        #if FUZZING
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, test))
        #else
            exit(replay(Array(CommandLine.arguments.dropFirst()), test))
        #endif
    }

    /// Runs every input file under `paths` through `test`; 2 when a path cannot be read.
    static func replay(_ paths: [String], _ test: TestOneInput) -> Int32 {
        guard !paths.isEmpty else {
            print("usage: \(CommandLine.arguments[0]) FILE-OR-DIRECTORY...")
            print("(a build without -DFUZZING replays inputs; scripts/fuzz.sh builds the fuzzer)")
            return 2
        }
        var count = 0
        for path in paths {
            guard let files = inputFiles(at: path) else {
                print("cannot read \(path)")
                return 2
            }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    print("cannot read \(file)")
                    return 2
                }
                _ = data.withUnsafeBytes { bytes in
                    test(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
                }
                count += 1
            }
        }
        print("\(count) input(s) ran without a crash")
        return 0
    }

    /// The file at `path`, or the files directly inside the directory at `path`, sorted.
    private static func inputFiles(at path: String) -> [String]? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else { return [path] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return nil }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { (path as NSString).appendingPathComponent($0) }
    }
}

extension UnsafeRawBufferPointer {
    /// The input libFuzzer passes (`data` may be nil when `size` is 0).
    public init(fuzzInput data: UnsafePointer<UInt8>?, count: Int) {
        self.init(start: data, count: data == nil ? 0 : count)
    }

    /// The input cut at each 0x1E (ASCII record separator): how a target takes several texts.
    public func records() -> [Data] {
        split(separator: 0x1E, omittingEmptySubsequences: false).map { Data($0) }
    }
}
