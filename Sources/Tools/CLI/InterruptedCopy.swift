import Foundation

/// A backup stopped by SIGTERM, SIGINT or SIGHUP (`timeout`, a stopped timer unit, Ctrl-C, a
/// closed terminal) removes its unfinished copy and the copy's journal, then ends as the signal
/// would have ended it: a copy of customers' purchases is not left behind under a name no clean-up
/// looks for. (SIGKILL cannot be caught: the next backup to the same name takes that copy over.)
/// A signal ignored when the command started (`nohup`) stays ignored.
enum InterruptedCopy {
    /// The copy's path and its journal's, set once before the handlers are installed and read
    /// only by them: plain C strings, as a signal handler may only call async-signal-safe functions.
    nonisolated(unsafe) private static var paths: (UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?) = (nil, nil)

    /// Removes `partial` (and `partial-journal`) when one of the signals comes from now on.
    static func removeOnSignal(_ partial: String) {
        paths = (strdup(partial), strdup(partial + "-journal"))
        for number in Termination.signals where !Termination.isIgnored(number) {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if let copy = InterruptedCopy.paths.0 { unlink(copy) }
                if let journal = InterruptedCopy.paths.1 { unlink(journal) }
                signal(number, SIG_DFL)
                raise(number)
            }
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        // A mask inherited from the parent may block them, and the handler would never run.
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in Termination.signals { sigaddset(&signals, number) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
