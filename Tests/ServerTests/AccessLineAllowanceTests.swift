import Foundation
import LoopbackClient
import Testing
import Threads

@testable import Server

/// Access lines of refused requests are written 50 a second at most, the rest counted
/// (`left_out`); answered requests each keep their line.
@Suite struct AccessLineAllowanceTests {
    /// The number after `name=` in a text log line, or 0.
    static func count(_ name: String, in line: String) -> Int {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard let field = words.first(where: { $0.hasPrefix("\(name)=") }) else { return 0 }
        return Int(field.dropFirst(name.count + 1)) ?? 0
    }

    @Test func aFloodOfRefusedRequestsIsCountedNotWrittenLineByLine() throws {
        let fixture = try ServerFixture()
        let kept = Locked<[String]>([])
        // One second for the whole test, however long a loaded machine takes over it.
        let frozen = Date()
        let service = try RevenueDotService(
            config: try fixture.config(), clock: { frozen }, log: { line in kept.withLock { $0.append(line) } })
        try service.start()
        let connection = try LoopbackConnection(port: service.port)
        let key = ["Authorization": "Bearer pk_test_public"]
        for _ in 0..<200 {
            // 404: a path nothing serves, answered on the same connection.
            #expect(try connection.request("GET", "/nothing", headers: key).status == 404)
        }
        for _ in 0..<60 {
            #expect(try connection.request("GET", "/v1/product_entitlement_mapping", headers: key).status == 200)
        }
        service.shutdown()
        let access = OperationalLogTests.lines(kept, event: "access")
        let refused = access.filter { $0.contains(" status=404 ") }
        #expect(access.count(where: { $0.contains(" status=200 ") }) == 60, "answered requests keep every line")
        #expect(refused.count == AccessLines.refusedPerSecond, "\(refused.count) lines for 200 refusals")
        // Every refusal is written or counted: the lines' `left_out` and the summaries'.
        let summaries = OperationalLogTests.lines(kept, event: "access.left_out")
        let counted = (refused + access.filter { $0.contains(" status=200 ") } + summaries).reduce(0) {
            $0 + Self.count("left_out", in: $1)
        }
        #expect(
            refused.count + counted == 200,
            "\(refused.count) written, \(counted) counted: \(kept.withLock { $0 }.filter { $0.contains("left_out") })")
    }
}
