import Foundation
import Testing

@testable import Storage

/// Where each app's notification history was read through (`backfill_marks`): kept per app and
/// environment, never moved back, the same on every engine.
@Suite("Storage contract: backfill marks")
struct BackfillMarkContractTests {
    @Test(arguments: ContractEngine.allCases)
    func aMarkMovesOnlyForwardPerAppAndEnvironment(_ engine: ContractEngine) throws {
        let under = try StoreUnderTest(engine)
        let store = under.store
        #expect(try store.backfillMark(appId: "demo", environment: "Sandbox") == nil)
        try store.advanceBackfillMark(appId: "demo", environment: "Sandbox", readThroughMs: 1_000, nowMs: 5)
        try store.advanceBackfillMark(appId: "demo", environment: "Production", readThroughMs: 3_000, nowMs: 5)
        // Two nodes finishing runs in either order: the later end stays.
        try store.advanceBackfillMark(appId: "demo", environment: "Sandbox", readThroughMs: 2_000, nowMs: 6)
        try store.advanceBackfillMark(appId: "demo", environment: "Sandbox", readThroughMs: 1_500, nowMs: 7)
        #expect(try store.backfillMark(appId: "demo", environment: "Sandbox") == 2_000)
        #expect(try store.backfillMark(appId: "demo", environment: "Production") == 3_000)
        #expect(try store.backfillMark(appId: "other", environment: "Sandbox") == nil)
    }
}
