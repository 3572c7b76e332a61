import AppStore
import Crypto
import Foundation
import Threads

/// The median rate of `rounds` measurements of about `seconds` each: one slow or fast round
/// (another process, a frequency change) does not move it.
func medianRate(_ verifier: SignedDataVerifier, _ payloads: [String], seconds: Double, rounds: Int) -> (rate: Double, count: Int)
{
    let results = (0..<rounds).map { _ in measure(verifier, payloads, minSeconds: seconds / Double(rounds)) }
    let rates = results.map(\.rate).sorted()
    return (rates[rates.count / 2], results.map(\.count).reduce(0, +))
}

/// Verifies `payloads` over and over for at least `minSeconds`; returns notifications per second.
func measure(_ verifier: SignedDataVerifier, _ payloads: [String], minSeconds: Double) -> (rate: Double, count: Int) {
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    var elapsed = 0.0
    repeat {
        for payload in payloads {
            do { _ = try verifier.verifyNotification(payload) } catch { fail("payload failed to verify: \(error)") }
        }
        count += payloads.count
        elapsed = (clock.now - start).inSeconds
    } while elapsed < minSeconds
    return (Double(count) / elapsed, count)
}

func verify(_ arguments: [String]) throws {
    guard let rootPath = argument("root", arguments), let payloadPath = argument("payloads", arguments) else {
        fail("verify needs --root PEM --payloads FILE")
    }
    let minSeconds = Double(argument("min-seconds", arguments) ?? "3") ?? 3
    let roots = try Certificate.parsePEM(try String(contentsOfFile: rootPath, encoding: .utf8))
    let payloads = try String(contentsOfFile: payloadPath, encoding: .utf8).split(separator: "\n").map(String.init)
    let policy = VerificationPolicy(bundleId: bundleId, appAppleId: appAppleId, environments: [.sandbox])
    let cold = try SignedDataVerifier(rootCertificates: roots, policy: policy, chainCache: nil)
    let warm = try SignedDataVerifier(rootCertificates: roots, policy: policy)
    _ = measure(warm, Array(payloads.prefix(1)), minSeconds: 0)  // prime the cache
    // `--warm-only` skips the cold pass, to profile the warm path alone.
    let coldResult =
        arguments.contains("--warm-only") ? (rate: 0, count: 0) : medianRate(cold, payloads, seconds: minSeconds / 2, rounds: 3)
    let warmResult = medianRate(warm, payloads, seconds: minSeconds, rounds: 5)
    let result: [String: Any] = [
        "cold_notifications_per_second": coldResult.rate.rounded(), "cold_notifications": coldResult.count,
        "warm_notifications_per_second": warmResult.rate.rounded(), "warm_notifications": warmResult.count,
    ]
    FileHandle.standardOutput.write(try json(result) + Data("\n".utf8))
}
