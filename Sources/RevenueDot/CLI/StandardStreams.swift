import Foundation

/// Writing to standard output and standard error without buffering surprises.
enum StandardStreams {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
