import Foundation
import Server

/// SIGTERM, SIGINT and SIGHUP, turned from process-killing signals into events to wait for.
///
/// SIGTERM and SIGINT stop the server. SIGHUP asks it to reload its configuration, except when
/// it comes from the terminal the server runs in closing (`make run` in a window closed): the
/// server then stops gracefully, as the signal's default action would have ended it (at once).
/// That case is told apart by the terminal itself: standard input, output or error were a
/// terminal at the start and none is any more (a hung-up terminal answers no terminal request).
/// Started with SIGHUP ignored (`nohup revenuedot serve`), the server never takes a SIGHUP for
/// "stop": each one reloads, so `kill -HUP` works as documented and a closed terminal's
/// SIGHUP, which `nohup` is there to survive, only reloads.
///
/// A handler of its own, installed with `sigaction` before `init` returns, writes the signal's
/// number to a pipe (`write` is one of the few calls a signal handler may make) and `wait` reads
/// it. A signal that comes while the service is still starting waits in the pipe, and is acted
/// on as soon as the start is over. (libdispatch's signal sources are not used: they are set up
/// on its own thread a moment after the signals are ignored, and a signal in between is lost.)
final class Termination {
    /// The pipe's ends: made once, before any handler can run, and never closed; nil when no
    /// pipe could be made (no descriptor left).
    private static let ends: (read: Int32, write: Int32)? = {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }()
    private let read: Int32
    static let signals = [SIGTERM, SIGINT, SIGHUP]
    /// Which of standard input, output and error were a terminal at the start.
    private let terminals: [Int32]
    /// Whether SIGHUP was ignored when the server started (`nohup`).
    private let hangupsIgnored: Bool

    init() throws {
        guard let ends = Self.ends else {
            throw CommandError("cannot watch for SIGTERM, SIGINT and SIGHUP: \(String(cString: strerror(errno)))")
        }
        read = ends.read
        terminals = (0...2).filter { isatty($0) == 1 }
        hangupsIgnored = Self.isIgnored(SIGHUP)
        for number in Self.signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(Termination.ends?.write ?? -1, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            // Other threads' system calls go on after the handler (most do; the rest retry on EINTR).
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        Self.unblockSignals()
    }

    /// Lets this thread (and the threads it starts from now on) take `signals`: a mask inherited
    /// from the parent may block them (a test runner's did), and a handler would never run.
    static func unblockSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Whether `number` is ignored (as `nohup` leaves SIGHUP for the command it runs).
    static func isIgnored(_ number: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Blocks until one of the signals arrives (at once if one came already) and returns it;
    /// SIGTERM when the pipe cannot be read (a stop is the safe reading).
    @discardableResult
    func wait() -> Int32 {
        var byte: UInt8 = 0
        while Glibc.read(read, &byte, 1) != 1 {
            guard errno == EINTR else { return SIGTERM }
        }
        return Int32(byte)
    }

    /// Whether the server was started in a terminal that has closed since (a SIGHUP then means
    /// "stop", not "reload").
    var terminalClosed: Bool {
        !hangupsIgnored && !terminals.isEmpty && terminals.allSatisfy { isatty($0) == 0 }
    }
}
