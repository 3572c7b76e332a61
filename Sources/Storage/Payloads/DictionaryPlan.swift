import Foundation

/// When stored payloads need a new zstd dictionary: a value fed with each payload as it is
/// compressed, deciding rather than acting (`StoredPayloads` trains and keeps what it decides).
///
/// Apple signs every notification with the same certificate chain for months, so a dictionary
/// made of recent payloads shrinks each to a few hundred bytes; a payload it does not fit (a
/// new chain, or no dictionary yet) compresses only about 1.7 times. The plan keeps the last
/// `window` payloads and whether each missed, and asks for a dictionary made from them once a
/// quarter of a full window missed. Payloads compressed with the dictionary being replaced do
/// not count against the next one: the window starts again when a dictionary is adopted or a
/// training fails.
struct DictionaryPlan: Sendable {
    /// A payload compressed to more than 1/`goodRatio` of its size, and to more than
    /// `smallEnough` bytes, missed the dictionary.
    static let goodRatio = 8
    /// Bytes a payload may compress to whatever its ratio: a better dictionary gains little there.
    static let smallEnough = 512
    /// How many recent payloads are weighed, and kept as samples to train on.
    let window: Int
    private var samples: [Data] = []
    private var missed: [Bool] = []
    /// Where the next payload goes in `samples` and `missed` once they are full.
    private var next = 0
    /// Whether a training asked for has not ended yet (adopted or failed).
    private(set) var isTraining = false

    /// What to do after a payload was compressed.
    enum Decision: Equatable {
        case keep
        /// Make a dictionary from these payloads, oldest first; tell the plan `adopted()` or
        /// `failed()` after.
        case train([Data])
    }

    /// Whether a payload of `raw` bytes compressed to `compressed` missed its dictionary.
    static func misses(raw: Int, compressed: Int) -> Bool {
        compressed > smallEnough && compressed * goodRatio > raw
    }

    init(window: Int) {
        precondition(window >= 8, "a dictionary is made from at least 8 payloads")
        self.window = window
    }

    /// Counts `payload`, which compressed to `size` bytes.
    mutating func compressed(_ payload: Data, into size: Int) -> Decision {
        let miss = Self.misses(raw: payload.count, compressed: size)
        if samples.count < window {
            samples.append(payload)
            missed.append(miss)
        } else {
            samples[next] = payload
            missed[next] = miss
            next = (next + 1) % window
        }
        guard !isTraining, samples.count == window, missed.count(where: { $0 }) * 4 >= window else { return .keep }
        isTraining = true
        return .train(Array(samples[next...] + samples[..<next]))
    }

    /// A dictionary trained as asked is now the one payloads are compressed with.
    mutating func adopted() { startOver() }

    /// No dictionary came of the training asked for: try again after another full window.
    mutating func failed() { startOver() }

    private mutating func startOver() {
        samples.removeAll()
        missed.removeAll()
        next = 0
        isTraining = false
    }
}
