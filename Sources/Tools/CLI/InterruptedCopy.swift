import Foundation
import Storage

/// A backup stopped by SIGTERM, SIGINT or SIGHUP (`timeout`, a stopped timer unit, Ctrl-C, a
/// closed terminal) removes its unfinished copy and the files SQLite keeps beside it, then ends
/// as the signal would have ended it: a copy of customers' purchases is not left behind under a
/// name no clean-up looks for. (SIGKILL cannot be caught: the next backup to the same name takes
/// that copy over.) A signal ignored when the command started (`nohup`) stays ignored.
enum InterruptedCopy {
    /// The paths to remove, as C strings, nil-terminated: allocated once and filled before the
    /// handlers are installed, then only read by them. A `let` of plain memory, so the handler
    /// calls nothing but `unlink`, `signal` and `raise`, which a signal handler may.
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 8)
        paths.initialize(repeating: nil, count: 8)
        return paths
    }()
    nonisolated(unsafe) private static var previous: [Int32: sigaction] = [:]
    /// The line the handler writes to standard error (with `write`, which a handler may call).
    nonisolated(unsafe) private static var said: (text: UnsafeMutablePointer<CChar>?, count: Int) = (nil, 0)

    /// Removes `partial` and its side files when one of the signals comes, until `stop`, and
    /// says so in one line.
    static func removeOnSignal(_ partial: String) {
        let files = [partial] + DatabaseBackup.sideFileSuffixes.map { partial + $0 }
        for (index, file) in files.prefix(7).enumerated() { paths[index] = strdup(file) }
        let line = "revenuedot backup: stopped by a signal before the copy was finished; \(partial) was removed\n"
        said = (strdup(line), line.utf8.count)
        for number in Termination.signals where !Termination.isIgnored(number) {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var index = 0
                while let path = InterruptedCopy.paths[index] {
                    unlink(path)
                    index += 1
                }
                if let text = InterruptedCopy.said.text { _ = write(2, text, InterruptedCopy.said.count) }
                signal(number, SIG_DFL)
                raise(number)
            }
            sigemptyset(&action.sa_mask)
            var old = sigaction()
            sigaction(number, &action, &old)
            previous[number] = old
        }
        Termination.unblockSignals()
    }

    /// The copy is finished (or gone): the signals act as they did before.
    static func stop() {
        for (number, old) in previous {
            var action = old
            sigaction(number, &action, nil)
        }
        previous = [:]
    }
}
