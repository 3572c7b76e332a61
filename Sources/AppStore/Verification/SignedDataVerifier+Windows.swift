import Crypto

extension SignedDataVerifier {
    /// The times a chain OpenSSL trusted at `time` under `root` is trusted at, as it would judge
    /// each of them.
    ///
    /// Under a single root, the intersection of the three certificates' windows. Under several,
    /// a root may have been issued again with the same key and new dates, and at each time
    /// OpenSSL takes an issuer valid then if it can. Which roots are valid changes only at
    /// their edges, and the leaf and intermediate stay valid inside their own windows, so
    /// OpenSSL judges every time between two edges alike: each such span is checked once, at
    /// its start (the one holding `time` is known good; a span in which no root is valid is
    /// not). Only a chain that passed every check comes here, which an attacker cannot make.
    func trustedWindows(_ header: CheckedHeader, root: Certificate, trustedAt time: Int64) -> [Range<Int64>] {
        let (leaf, intermediate) = (header.leaf, header.intermediate)
        let start = max(leaf.notBefore, intermediate.notBefore)
        let end = min(leaf.notAfter, intermediate.notAfter)
        let roots = trustStore.roots
        guard roots.count > 1 else { return [max(start, root.notBefore)..<min(end, root.notAfter)] }
        let inside = roots.flatMap { [$0.notBefore, $0.notAfter] }.filter { start < $0 && $0 < end }
        let edges = Set([start, end] + inside).sorted()
        var windows: [Range<Int64>] = []
        for span in zip(edges, edges.dropFirst()).map({ $0..<$1 }) {
            let trusted: Bool
            if span.contains(time) {
                trusted = true
            } else if !roots.contains(where: { $0.isValid(at: span.lowerBound) }) {
                trusted = false
            } else if case .trusted = trustStore.verify(leaf: leaf, intermediate: intermediate, at: span.lowerBound) {
                trusted = true
            } else {
                trusted = false
            }
            guard trusted else { continue }
            if let last = windows.last, last.upperBound == span.lowerBound {
                windows[windows.count - 1] = last.lowerBound..<span.upperBound
            } else {
                windows.append(span)
            }
        }
        return windows
    }
}
