import Foundation

/// Checks `condition` every 10 ms until it holds or `seconds` have passed; returns whether it held
/// (checked once more at the deadline). The one wait loop of these tests: a condition that never
/// comes true fails its test after the timeout instead of hanging it.
@discardableResult
func poll(seconds: Double, until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}
