import AppStore
import Foundation

func generate(_ arguments: [String]) throws {
    guard let out = argument("out", arguments) else { fail("generate needs --out DIR") }
    let count = Int(argument("count", arguments) ?? "200") ?? 200
    // Notifications cycle over this many subscriptions (default: one each), in signed-date order,
    // as renewals of long-lived subscriptions arrive.
    let subscriptions = max(1, Int(argument("subscriptions", arguments) ?? "\(count)") ?? count)
    // Ids start this far in, so that a second set names other purchases than the first.
    let offset = Int(argument("offset", arguments) ?? "0") ?? 0
    let chain = try TestChain()
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    try chain.root.pem.write(toFile: "\(out)/root.pem", atomically: true, encoding: .utf8)
    // A root others can change is refused, whatever the umask.
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: "\(out)/root.pem")
    let start = Int64(Date().timeIntervalSince1970 * 1000) - Int64(count)
    var lines: [String] = []
    for index in 0..<count {
        let now = start + Int64(index)
        let original = "20000000\(String(format: "%08d", offset + index % subscriptions))"
        let transaction: [String: Any] = [
            "transactionId": "30000000\(String(format: "%08d", offset + index))", "originalTransactionId": original,
            "webOrderLineItemId": "40000000\(String(format: "%08d", offset + index))", "bundleId": bundleId,
            "productId": "pro.monthly", "subscriptionGroupIdentifier": "21000001", "purchaseDate": now - 1000,
            "originalPurchaseDate": now - 86_400_000, "expiresDate": now + 30 * 86_400_000, "quantity": 1,
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": now,
            "environment": "Sandbox", "transactionReason": "RENEWAL", "storefront": "USA", "storefrontId": "143441",
            "price": 9990, "currency": "USD", "appTransactionId": "704289572311513457",
            "appAccountToken": "00000000-0000-4000-8000-\(String(format: "%012d", offset + index % subscriptions))",
        ]
        let renewal: [String: Any] = [
            "originalTransactionId": original, "productId": "pro.monthly", "autoRenewProductId": "pro.monthly",
            "autoRenewStatus": 1, "signedDate": now, "environment": "Sandbox", "renewalDate": now + 30 * 86_400_000,
            "recentSubscriptionStartDate": now - 86_400_000, "renewalPrice": 9990, "currency": "USD",
            "appTransactionId": "704289572311513457",
        ]
        let notification: [String: Any] = [
            "notificationType": "DID_RENEW", "notificationUUID": UUID().uuidString.lowercased(), "version": "2.0",
            "signedDate": now,
            "data": [
                "appAppleId": appAppleId, "bundleId": bundleId, "bundleVersion": "42", "environment": "Sandbox",
                "status": 1, "signedTransactionInfo": try chain.sign(payload: json(transaction)),
                "signedRenewalInfo": try chain.sign(payload: json(renewal)),
            ],
        ]
        lines.append(try chain.sign(payload: json(notification)))
    }
    try (lines.joined(separator: "\n") + "\n").write(toFile: "\(out)/payloads.txt", atomically: true, encoding: .utf8)
}
