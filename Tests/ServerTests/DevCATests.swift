import Crypto
import Foundation
import Testing
import Threads

@testable import Tools

/// The dev CA `simulate` and `init` make under `.revenuedot/dev-ca/`: made once, whole, however
/// many processes start at once.
@Suite struct DevCATests {
    /// Eight `simulate ca` at once on an empty directory: one chain, whose leaf key signs what its
    /// leaf certificate verifies and which chains to its root (they used to write their files
    /// over each other: a leaf key of one chain beside another's certificate).
    @Test func processesMakingItAtOnceLeaveOneWholeChain() throws {
        let directory = TestDirectory("dev-ca-race")
        let runs = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let run = try? runCLI(["simulate", "ca"], in: directory.path(""))
            runs.withLock { $0.append(run.map { "\($0.status) \($0.output)" } ?? "no run") }
        }
        let root = directory.url.appendingPathComponent(".revenuedot/dev-ca")
        #expect(Set(runs.value) == ["0 \(root.appendingPathComponent("root.pem").path)\n"], "\(runs.value)")
        let chain = try DevCA.load(from: root).chain
        guard
            case .trusted = try TrustStore(roots: [chain.root]).verify(
                leaf: chain.leaf, intermediate: chain.intermediate, at: Int64(Date().timeIntervalSince1970))
        else {
            Issue.record("the leaf does not chain to the root")
            return
        }
        let message = Data("signed by the dev CA's leaf".utf8)
        #expect(try chain.leaf.publicKey().verify(rawSignature: try chain.leafKey.signRaw(message), message: message))
    }
}
