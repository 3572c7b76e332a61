import Foundation
import LoopbackClient
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Webhook delivery end to end, through the delivery worker, against receivers that attack the
/// sender: the server keeps running, and each attempt is recorded as failed with its reason.
@Suite("Webhook delivery to hostile receivers")
struct HostileReceiverDeliveryTests {
    /// App "demo" makes an event for each new purchase and sends it to `url`, with a 1 s deadline.
    /// - Parameter caFile: the CA the sender trusts for an https `url`.
    static func fixture(url: String, retryDelays: String, caFile: String? = nil) throws -> ServerFixture {
        try ServerFixture(
            demoOptions: """
                "trackNewPurchasesFromServerNotifications": true,
                "webhook": {"url": "\(url)", "authorization": "Bearer hook-token", "signingSecret": "whsec_test",
                            "timeoutSeconds": 1, "retryDelaysSeconds": \(retryDelays), "concurrency": 2\(
                                caFile.map { #", "caFile": "\#($0)""# } ?? "")}
                """)
    }

    struct Delivery {
        var status: String
        var attempts: Int64
        var lastStatus: Int64?
        var lastError: String?
    }

    /// The one delivery's row.
    static func delivery(_ fixture: ServerFixture) throws -> Delivery? {
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        let rows = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT status, attempts, last_status, last_error FROM deliveries", [])
        }
        return rows.first.map {
            Delivery(
                status: $0[0].textValue ?? "", attempts: $0[1].integerValue ?? 0, lastStatus: $0[2].integerValue,
                lastError: $0[3].textValue)
        }
    }

    /// A huge `Content-Length`, over plain http or over https.
    struct HugeLength: Sendable, CustomTestStringConvertible {
        var length: String
        var transport: Transport
        var testDescription: String { "\(length) \(transport)" }
    }

    /// The attack that crashed the server, and again at every restart since the event stayed
    /// pending: an answer declaring Content-Length 2^63 - 1 (over plain http before our client
    /// read it), or 2^63 - 512 to 2^63 - 1 over https (while libcurl and Foundation read https
    /// answers). Against the real server process, each attempt is a failure recorded in
    /// storage, the event is dead-lettered after its retries, and the process is still running
    /// and answering /health, then stops cleanly.
    @Test(arguments: [
        HugeLength(length: "9223372036854775807", transport: .plain),
        HugeLength(length: "9223372036854775807", transport: .tls),
        HugeLength(length: "9223372036854775296", transport: .tls),
    ])
    func aHugeContentLengthIsAFailedAttemptNotACrash(attack: HugeLength) throws {
        let receiver = try RawReceiver { peer in
            peer.write("HTTP/1.1 200 OK\r\nContent-Length: \(attack.length)\r\n\r\nabc")
        }
        defer { receiver.stop() }
        let (url, proxy) = try attack.transport.url(port: receiver.port, plainURL: receiver.url)
        defer { proxy?.stop() }
        let fixture = try Self.fixture(
            url: url, retryDelays: "[0, 0]", caFile: proxy == nil ? nil : try TestCertificates.shared().caFile)
        let child = try ChildServer(configPath: fixture.configPath)
        let connection = try LoopbackConnection(port: child.port)
        #expect(
            try connection.postNotification(try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
                .status == 200)
        #expect(receiver.wait { $0.requests.count >= 3 }, "three attempts")
        #expect(poll(seconds: 5) { (try? Self.delivery(fixture))??.status == "dead" })
        #expect(receiver.requests.allSatisfy { $0.lowercased().contains("x-revenuedot-signature: ") })
        #expect(child.process.isRunning)
        #expect(try connection.request("GET", "/health").status == 200)
        child.kill(SIGTERM)
        #expect(child.wait() == 0)
        let delivery = try Self.delivery(fixture)
        #expect(delivery?.attempts == 3)
        #expect(delivery?.lastStatus == nil)
        #expect(
            delivery?.lastError?.contains("closed the connection in the middle of a response") == true,
            "\(delivery?.lastError ?? "")")
        #expect(receiver.requests.count == 3)
    }

    /// A 307 to elsewhere: the worker records a failed attempt with the status and the
    /// `Location`, and nothing reaches the `Location` (the token and signature stay with the
    /// configured URL).
    @Test func aRedirectIsAFailedAttemptRecordedWithItsLocation() throws {
        let elsewhere = try RawReceiver { peer in peer.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
        defer { elsewhere.stop() }
        let location = "http://127.0.0.1:\(elsewhere.port)/stolen"
        let receiver = try RawReceiver { peer in
            peer.write("HTTP/1.1 307 Temporary Redirect\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n")
        }
        defer { receiver.stop() }
        let fixture = try Self.fixture(url: receiver.url, retryDelays: "[60]")
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        #expect(
            try connection.postNotification(try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
                .status == 200)
        #expect(poll(seconds: 5) { (try? Self.delivery(fixture))??.attempts == 1 })
        service.shutdown()
        let delivery = try Self.delivery(fixture)
        #expect(delivery?.status == "pending")
        #expect(delivery?.lastStatus == 307)
        #expect(delivery?.lastError == "answered HTTP 307 (redirect to \(location), not followed)")
        #expect(receiver.requests.count == 1)
        #expect(receiver.requests.first?.lowercased().contains("authorization: bearer hook-token") == true)
        #expect(elsewhere.connections == 0)
    }
}
