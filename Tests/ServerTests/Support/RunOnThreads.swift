import Foundation

/// Runs `body(index)` on `count` dedicated threads at once and waits for all of them.
///
/// `DispatchQueue.concurrentPerform` runs only as many at a time as there are cores (two
/// here), which would not make concurrent requests; these are real threads.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}
