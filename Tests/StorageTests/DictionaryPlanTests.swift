import Foundation
import Testing

@testable import Storage

/// When stored payloads get a new dictionary: decisions from the sizes payloads compressed to.
@Suite struct DictionaryPlanTests {
    /// A payload of `size` bytes.
    static func payload(_ size: Int) -> Data { Data(repeating: UInt8(ascii: "a"), count: size) }

    /// Feeds `(raw, compressed)` sizes in order and returns the decisions as "keep" or "train N".
    static func decisions(_ sizes: [(Int, Int)], window: Int = 8, then: (inout DictionaryPlan) -> Void = { _ in })
        -> [String]
    {
        var plan = DictionaryPlan(window: window)
        return sizes.map { raw, compressed in
            switch plan.compressed(payload(raw), into: compressed) {
            case .keep: return "keep"
            case .train(let samples): return "train \(samples.count)"
            }
        }
    }

    static let miss = (13_000, 8_000)
    static let hit = (13_000, 400)

    @Test(
        arguments: [
            // No dictionary yet: every payload misses, and a full window trains one.
            (Array(repeating: miss, count: 9), ["keep", "keep", "keep", "keep", "keep", "keep", "keep", "train 8", "keep"]),
            // A dictionary that fits: never trained again.
            (Array(repeating: hit, count: 12), Array(repeating: "keep", count: 12)),
            // A quarter of a full window missing (a new chain arriving) is enough; fewer is not.
            ([hit, hit, hit, hit, hit, hit, miss, miss], Array(repeating: "keep", count: 7) + ["train 8"]),
            ([hit, hit, hit, hit, hit, hit, hit, miss], Array(repeating: "keep", count: 8)),
            // The window slides: misses that left it no longer count.
            ([miss, hit, hit, hit, hit, hit, hit, hit, miss], Array(repeating: "keep", count: 9)),
            // Small payloads gain nothing from a better dictionary, whatever their ratio.
            (Array(repeating: (600, 500), count: 10), Array(repeating: "keep", count: 10)),
            (Array(repeating: (600, 513), count: 8), Array(repeating: "keep", count: 7) + ["train 8"]),
        ] as [([(Int, Int)], [String])])
    func decidesFromTheWindow(sizes: [(Int, Int)], expected: [String]) {
        #expect(Self.decisions(sizes) == expected)
    }

    /// While a training runs, nothing more is asked for; after it, the window starts again.
    @Test func oneTrainingAtATimeAndAFreshWindowAfter() {
        var plan = DictionaryPlan(window: 8)
        for _ in 0..<7 { #expect(plan.compressed(Self.payload(13_000), into: 8_000) == .keep) }
        guard case .train(let samples) = plan.compressed(Self.payload(13_000), into: 8_000) else {
            Issue.record("a full window of misses did not ask for a training")
            return
        }
        #expect(samples.count == 8)
        #expect(plan.isTraining)
        for _ in 0..<20 { #expect(plan.compressed(Self.payload(13_000), into: 8_000) == .keep) }
        plan.failed()
        #expect(!plan.isTraining)
        for _ in 0..<7 { #expect(plan.compressed(Self.payload(13_000), into: 8_000) == .keep) }
        #expect(plan.compressed(Self.payload(13_000), into: 8_000) != .keep)
        plan.adopted()
        for _ in 0..<7 { #expect(plan.compressed(Self.payload(13_000), into: 8_000) == .keep) }
    }

    /// The samples are the newest payloads, the window's, oldest first.
    @Test func samplesAreTheNewestPayloads() {
        var plan = DictionaryPlan(window: 8)
        var last: [Data] = []
        for index in 0..<12 {
            let payload = Data("payload \(index) ".utf8) + Self.payload(1_000)
            if case .train(let samples) = plan.compressed(payload, into: 900) { last = samples }
        }
        #expect(last == (0..<8).map { Data("payload \($0) ".utf8) + Self.payload(1_000) })
        var sliding = DictionaryPlan(window: 8)
        for index in 0..<10 { _ = sliding.compressed(Data("p\(index)".utf8) + Self.payload(1_000), into: 10) }
        for index in 10..<18 {
            if case .train(let samples) = sliding.compressed(Data("p\(index)".utf8) + Self.payload(1_000), into: 900) {
                last = samples
            }
        }
        // Two misses in a window of 8 ask for a training: at p11, on p4 to p11.
        #expect(last == (4..<12).map { Data("p\($0)".utf8) + Self.payload(1_000) })
    }
}
