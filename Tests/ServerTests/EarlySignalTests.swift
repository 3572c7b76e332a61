import Foundation
import Testing

/// A SIGTERM that comes while `revenuedot serve` is still starting stops it once the start is
/// over, whenever it comes: none is lost. (Watched through libdispatch's signal sources, one
/// that came in the few milliseconds between ignoring the signal and libdispatch watching it was
/// lost, and the server ran on: 3 tries in 30 in review.)
@Suite("Early stop signals", .serialized)
struct EarlySignalTests {
    @Test func aSigtermDuringTheStartStopsTheServer() throws {
        let fixture = try ServerFixture()
        // From right after the exec to well after the listening socket is up.
        for delayMs in [0, 2, 5, 8, 10, 12, 15, 18, 20, 22, 25, 30, 40, 60, 100, 200, 400] {
            let process = Process()
            process.executableURL = ChildServer.executable
            process.arguments = ["serve", "--config", fixture.configPath]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(delayMs * 1000))
            kill(process.processIdentifier, SIGTERM)
            let stopped = poll(seconds: 10) { !process.isRunning }
            if !stopped {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            #expect(stopped, "SIGTERM \(delayMs) ms after the start left the server running")
            // Before its watch is set, the signal's default action ends it (nothing is open yet);
            // after, it stops gracefully.
            let byTheSignal = process.terminationReason == .uncaughtSignal
            #expect(
                byTheSignal ? process.terminationStatus == SIGTERM : process.terminationStatus == 0,
                "SIGTERM after \(delayMs) ms: \(byTheSignal ? "signal" : "exit") \(process.terminationStatus)")
        }
    }
}
