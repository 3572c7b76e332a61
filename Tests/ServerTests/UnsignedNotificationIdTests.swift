import AppStore
import Foundation
import JSON
import Storage
import Testing

@testable import Server

/// A notification the App Store did not sign (Xcode, accepted by configuration) is stored under
/// its environment's name: anyone can write one, and one carrying the UUID of a real Sandbox
/// notification must not make the real one a duplicate.
@Suite struct UnsignedNotificationIdTests {
    @Test func anUnsignedCopyOfARealUUIDDoesNotTakeItsPlace() throws {
        let directory = TestDirectory("unsigned-uuid")
        let signer = SignedNotifications.shared
        let root = try directory.write("root.pem", signer.chain.root.pem)
        let path = try directory.write(
            "revenuedot.json",
            """
            {"listen": "127.0.0.1:0", "database": "sqlite:\(directory.path("revenuedot.sqlite"))",
             "apps": [{"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234,
                       "environments": ["Sandbox", "Xcode"], "rootCertificates": ["\(root)"]}]}
            """)
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let ingest = Ingest(
            verifiers: try AppVerifiers.forApps(of: try ConfigLoader.load(path: path)), store: store, metrics: Metrics())
        let uuid = UUID().uuidString.lowercased()
        // Signed by a key of its own, as StoreKit testing in Xcode signs.
        let xcode = try SignedNotifications(chain: try TestChain(name: "Xcode")).notification(uuid: uuid, environment: "Xcode")
        let real = try signer.notification(uuid: uuid)

        #expect(ingest.receive(appId: "demo", body: SignedNotifications.body(xcode)) == .stored(uuid: "xcode:\(uuid)"))
        #expect(ingest.receive(appId: "demo", body: SignedNotifications.body(real)) == .stored(uuid: uuid))
        // Each is still recognised when it comes again.
        #expect(ingest.receive(appId: "demo", body: SignedNotifications.body(xcode)) == .duplicate(uuid: "xcode:\(uuid)"))
        #expect(ingest.receive(appId: "demo", body: SignedNotifications.body(real)) == .duplicate(uuid: uuid))
    }
}
