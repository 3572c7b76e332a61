import Threads

/// The threads that verify notification POSTs (`Ingest`), in two lanes: payloads whose header
/// is one that verified before (`SignedDataVerifier.knowsSigner`: App Store's, which a forger
/// can copy, but then pays a signature check, a twentieth of the other lane's), and all others,
/// a certificate chain's check each (a forger's own leaf under Apple's intermediate). A flood of
/// forged chains fills the others' lane; Apple's next notification waits in its own.
package struct VerifierLanes: Sendable {
    package let knownSigners: WorkerPool
    package let others: WorkerPool

    package init(knownSigners: WorkerPool, others: WorkerPool) {
        self.knownSigners = knownSigners
        self.others = others
    }

    /// A thread per core for known signers, half as many for the others: a flood takes at most
    /// half the cores.
    package init(cores: Int) {
        self.init(
            knownSigners: WorkerPool(name: "verify", threads: max(2, cores)),
            others: WorkerPool(name: "verify-other", threads: max(1, cores / 2)))
    }

    /// Stops both (`WorkerPool.stop`).
    package func stop() {
        knownSigners.stop()
        others.stop()
    }
}
