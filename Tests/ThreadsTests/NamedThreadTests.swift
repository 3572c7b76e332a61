import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Threads

@Suite("NamedThread")
struct NamedThreadTests {
    /// The name the OS shows for the calling thread.
    private static func osName() -> String {
        let text = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .newlines)
    }

    /// Many threads started at once each carry their name: the name is set only once the thread
    /// knows itself, so none is lost to the start.
    @Test func everyThreadIsListedUnderItsName() {
        let names = Mutex<[String: String]>([:])
        let done = DispatchGroup()
        for index in 0..<100 {
            done.enter()
            NamedThread.start("test-\(index)") {
                let shown = Self.osName()
                names.withLock { $0["test-\(index)"] = shown }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        let shown = names.withLock { $0 }
        #expect(shown.count == 100)
        for (expected, actual) in shown { #expect(actual == expected) }
    }

    /// Linux takes at most 15 bytes; a longer name is cut, at a character boundary, not dropped.
    @Test func longNamesAreCut() {
        #expect(NamedThread.osName("webhook-0-com.example.app") == "webhook-0-com.e")
        #expect(NamedThread.osName("short") == "short")
        #expect(NamedThread.osName("webhooks-apps-éé") == "webhooks-apps-")
        let shown = Mutex("")
        let done = DispatchSemaphore(value: 0)
        NamedThread.start("a-name-longer-than-fifteen") {
            shown.withLock { $0 = Self.osName() }
            done.signal()
        }
        done.wait()
        #expect(shown.withLock { $0 } == "a-name-longer-t")
    }
}
