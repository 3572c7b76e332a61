import Dispatch
import Threads

extension Store {
    /// Starts the writer thread with the writer `open` makes (which migrates), and waits until it
    /// is ready; returns what it said at start.
    static func startWriter(
        queue: WriteQueue, finished: DispatchGroup, maxBatch: Int,
        open: @escaping @Sendable () throws(StoreError) -> Writer
    ) throws(StoreError) -> Writer.Started {
        let ready = Completion<Writer.Started>()
        finished.enter()
        NamedThread.start("storage-writer") {
            Writer.serve(open: open, queue: queue, maxBatch: maxBatch, ready: ready)
            finished.leave()
        }
        switch ready.wait() {
        case .failure(let error):
            queue.close()
            finished.wait()
            throw error
        case .success(let started):
            return started
        }
    }
}
