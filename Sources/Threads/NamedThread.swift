import Dispatch
import Foundation

/// Starting a thread under a name that the OS shows (`top -H`, `perf`, `/proc/PID/task/*/comm`,
/// and the benchmark's CPU per thread).
///
/// On Linux, Foundation names the OS thread only when the name is set from the thread itself,
/// and only once `start()` has returned in the starting thread (until then the `Thread` does not
/// know its OS thread, and the name is dropped without a word). So neither setting `name` before
/// `start()` nor setting it first thing in the body is reliable: the new thread waits until
/// `start()` has returned, and then names itself.
public enum NamedThread {
    /// Runs `body` on a new thread named `name`, cut to its first 15 bytes (Linux refuses a
    /// longer name, and the thread would have none).
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let started = DispatchSemaphore(value: 0)
        let shown = osName(name)
        let thread = Thread {
            started.wait()
            Thread.current.name = shown
            body()
        }
        thread.start()
        started.signal()
    }

    /// `name` cut to at most 15 UTF-8 bytes, at a character boundary.
    static func osName(_ name: String) -> String {
        var shown = ""
        for character in name {
            guard shown.utf8.count + character.utf8.count <= 15 else { break }
            shown.append(character)
        }
        return shown
    }
}
