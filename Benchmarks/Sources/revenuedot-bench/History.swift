import AppStore
import Dispatch
import Foundation
import JSON
import Server
import Storage
import Synchronization

/// `history --config FILE --payloads FILE --count N`: a stored history for the ingest benchmark
/// to run on. N notifications go through the store's write path with the subscription logic,
/// as ingest stores them (purchases, customers, events, timers, the payload compressed), but
/// are made in this process and not verified: signing and verifying a million would take most
/// of an hour. Each is a renewal of a subscription of its own (ids `5…`, customers by
/// `appAccountToken`), signed over the year before now and expiring a month from now, so that
/// none of their timers comes due while the benchmark runs. The stored signed payload is one of
/// the benchmark's real payloads, taken in turn: the stored bytes are those of real ones, though
/// they name other ids than the row (a history for measuring, not for replay).
func history(_ arguments: [String]) throws {
    guard let configPath = argument("config", arguments), let payloadsPath = argument("payloads", arguments) else {
        fail("history needs --config FILE --payloads FILE")
    }
    let count = Int(argument("count", arguments) ?? "1000000") ?? 1_000_000
    let config = try ConfigLoader.load(path: configPath)
    let handOff = LedgerHandOff(config: config, cache: LedgerCache())
    let store =
        switch config.database {
        case .sqlite(let path): try Store(path: path, handOff: handOff, exclusive: true)
        case .postgres(let url): try Store(postgres: url, handOff: handOff)
        }
    let payloads = try lines(payloadsPath).map { String(decoding: $0, as: UTF8.self) }
    let appId = config.apps[0].id
    let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
    let yearMs: Int64 = 365 * 86_400_000
    let started = Date()
    // Enough in flight for full group commits, few enough to keep memory flat.
    let window = DispatchSemaphore(value: 4096)
    let failures = Atomic<Int>(0)
    let made = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: 2) { worker in
        for index in stride(from: worker, to: count, by: 2) {
            let signedMs = nowMs - yearMs + Int64(index) * yearMs / Int64(max(count, 1))
            let record: NotificationRecord
            do {
                record = try historyRecord(
                    index: index, signedMs: signedMs, expiresMs: nowMs + 30 * 86_400_000 + Int64(index % 86_400_000),
                    appId: appId, signedPayload: payloads[index % payloads.count])
            } catch {
                fail("making history notification \(index): \(error)")
            }
            window.wait()
            store.store(record) { result in
                if case .failure = result { failures.add(1, ordering: .relaxed) }
                window.signal()
            }
            let done = made.add(1, ordering: .relaxed).newValue
            if done % 100_000 == 0 {
                let rate = Double(done) / Date().timeIntervalSince(started)
                FileHandle.standardError.write(Data("history: \(done)/\(count), \(Int(rate))/s\n".utf8))
            }
        }
    }
    // Every store is answered once the window is whole again (a semaphore must end as it began).
    for _ in 0..<4096 { window.wait() }
    for _ in 0..<4096 { window.signal() }
    store.close()
    let seconds = Date().timeIntervalSince(started)
    let failed = failures.load(ordering: .relaxed)
    guard failed == 0 else { fail("history: \(failed) of \(count) notifications were not stored") }
    print(
        String(
            decoding: try json(["notifications": count, "seconds": seconds, "per_second": Int(Double(count) / seconds)]),
            as: UTF8.self))
}

/// History notification `index`: a DID_RENEW of subscription `5…index`, decoded from JSON made
/// here as the verifier would have decoded it.
private func historyRecord(index: Int, signedMs: Int64, expiresMs: Int64, appId: String, signedPayload: String) throws
    -> NotificationRecord
{
    let number = String(format: "%010d", index)
    let original = "50\(number)"
    let transaction = """
        {"transactionId":"60\(number)","originalTransactionId":"\(original)","webOrderLineItemId":"70\(number)",\
        "bundleId":"\(bundleId)","productId":"pro.monthly","subscriptionGroupIdentifier":"21000001",\
        "purchaseDate":\(signedMs - 1000),"originalPurchaseDate":\(signedMs - 86_400_000),"expiresDate":\(expiresMs),\
        "quantity":1,"type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":\(signedMs),\
        "environment":"Sandbox","transactionReason":"RENEWAL","storefront":"USA","storefrontId":"143441","price":9990,\
        "currency":"USD","appTransactionId":"704289572311513457",\
        "appAccountToken":"00000000-0000-4000-9000-\(String(format: "%012d", index))"}
        """
    let renewal = """
        {"originalTransactionId":"\(original)","productId":"pro.monthly","autoRenewProductId":"pro.monthly",\
        "autoRenewStatus":1,"signedDate":\(signedMs),"environment":"Sandbox","renewalDate":\(expiresMs),\
        "recentSubscriptionStartDate":\(signedMs - 86_400_000),"renewalPrice":9990,"currency":"USD",\
        "appTransactionId":"704289572311513457"}
        """
    let notification = """
        {"notificationType":"DID_RENEW","notificationUUID":"\(UUID().uuidString.lowercased())","version":"2.0",\
        "signedDate":\(signedMs),"data":{"appAppleId":\(appAppleId),"bundleId":"\(bundleId)","bundleVersion":"42",\
        "environment":"Sandbox","status":1,"signedTransactionInfo":"-","signedRenewalInfo":"-"}}
        """
    let decoder = JSONValueDecoder()
    func verified<P: SignedPayload>(_ text: String, as type: P.Type) throws -> VerifiedPayload<P> {
        let json = Data(text.utf8)
        return VerifiedPayload(payload: try decoder.decode(P.self, from: json), json: json, isSignedByAppStore: true)
    }
    let decoded = VerifiedNotification(
        notification: try verified(notification, as: ResponseBodyV2DecodedPayload.self),
        transaction: try verified(transaction, as: JWSTransactionDecodedPayload.self),
        renewalInfo: try verified(renewal, as: JWSRenewalInfoDecodedPayload.self))
    return NotificationRecord(
        verified: decoded, appId: appId, signedPayload: signedPayload, receivedAt: signedMs + 500, state: .received,
        stateReason: nil)
}
