import Foundation
import Storage

/// A long command stopped by SIGTERM, SIGINT or SIGHUP (`timeout`, a stopped timer unit, Ctrl-C,
/// a closed terminal) says so in one line, then ends as the signal would have ended it. A backup
/// first removes its unfinished copy and the files SQLite keeps beside it: a copy of customers'
/// purchases is not left behind under a name no clean-up looks for. (SIGKILL cannot be caught:
/// the next backup to the same name takes that copy over.) A signal ignored when the command
/// started (`nohup`) stays ignored.
enum InterruptedCommand {
    /// The paths to remove, as C strings, nil-terminated: allocated once and filled before the
    /// handlers are installed, then only read by them. A `let` of plain memory, so the handler
    /// calls nothing but `unlink`, `write`, `strlen`, `signal` and `raise`, which a signal
    /// handler may.
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 8)
        paths.initialize(repeating: nil, count: 8)
        return paths
    }()
    nonisolated(unsafe) private static var previous: [Int32: sigaction] = [:]
    /// The line the handler writes to standard error (with `write`, which a handler may call),
    /// NUL-terminated: plain memory, filled before the handlers are installed, as `paths`.
    nonisolated(unsafe) private static let said: UnsafeMutablePointer<CChar> = {
        let said = UnsafeMutablePointer<CChar>.allocate(capacity: saidCapacity)
        said.initialize(repeating: 0, count: saidCapacity)
        return said
    }()
    private static let saidCapacity = 8192

    /// Removes `partial` and its side files when one of the signals comes, until `stop`, and
    /// says so in one line.
    static func removeOnSignal(_ partial: String) {
        let files = [partial] + DatabaseBackup.sideFileSuffixes.map { partial + $0 }
        for (index, file) in files.prefix(7).enumerated() { paths[index] = strdup(file) }
        sayOnSignal("revenuedot backup: stopped by a signal; \(partial), its unfinished copy, is removed")
    }

    /// Says `line` when one of the signals comes, until `stop` (after removing any `paths`).
    static func sayOnSignal(_ line: String) {
        // Made now, not on first use inside the handler, which may not allocate.
        _ = paths
        let bytes = Array((line + "\n").utf8)
        for (index, byte) in bytes.prefix(saidCapacity - 1).enumerated() { said[index] = CChar(bitPattern: byte) }
        for number in Termination.signals where !Termination.isIgnored(number) {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var index = 0
                while let path = InterruptedCommand.paths[index] {
                    unlink(path)
                    index += 1
                }
                _ = write(2, InterruptedCommand.said, strlen(InterruptedCommand.said))
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

    /// The work is finished (or gone): the signals act as they did before.
    static func stop() {
        for (number, old) in previous {
            var action = old
            sigaction(number, &action, nil)
        }
        previous = [:]
    }
}
