import AppStore
import Foundation

/// `customers`: a test chain and one signed StoreKit 2 transaction per customer, written as
/// DIR/root.pem and DIR/transactions.txt (`app_user_id<TAB>jws` per line).
func customers(_ arguments: [String]) throws {
    guard let out = argument("out", arguments) else { fail("customers needs --out DIR") }
    let count = Int(argument("count", arguments) ?? "100000") ?? 100_000
    let chain = try TestChain()
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    try chain.root.pem.write(toFile: "\(out)/root.pem", atomically: true, encoding: .utf8)
    // A root others can change is refused, whatever the umask.
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: "\(out)/root.pem")
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    var output = Data()
    for index in 0..<count {
        let id = String(format: "%010d", index)
        // Every fourth customer has a yearly plan; a few have let theirs lapse (an expired entitlement).
        let product = index % 4 == 0 ? "pro.yearly" : "pro.monthly"
        let expires = index % 10 == 0 ? now - 86_400_000 : now + 30 * 86_400_000
        let transaction: [String: Any] = [
            "transactionId": "5\(id)", "originalTransactionId": "5\(id)", "webOrderLineItemId": "6\(id)",
            "bundleId": bundleId, "productId": product, "subscriptionGroupIdentifier": "21000001",
            "purchaseDate": expires - 30 * 86_400_000, "originalPurchaseDate": expires - 30 * 86_400_000,
            "expiresDate": expires, "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
            "signedDate": now, "environment": "Sandbox", "transactionReason": "PURCHASE", "storefront": "USA",
            "storefrontId": "143441", "price": 9990, "currency": "USD",
        ]
        output.append(Data("user-\(id)\t".utf8))
        output.append(Data(try chain.sign(payload: json(transaction)).utf8))
        output.append(0x0A)
    }
    try output.write(to: URL(fileURLWithPath: "\(out)/transactions.txt"))
}

/// `link`: POSTs each customer's transaction to `/v1/subscribers/{id}/transactions` (the seeding step).
func link(_ arguments: [String]) throws {
    guard let portText = argument("port", arguments), let port = UInt16(portText),
        let path = argument("transactions", arguments), let key = argument("key", arguments)
    else { fail("link needs --port P --transactions FILE --key PUBLIC_KEY") }
    let connections = Int(argument("connections", arguments) ?? "16") ?? 16
    let entries = try lines(path).map { line -> (String, Data) in
        let tab = line.firstIndex(of: 0x09) ?? line.endIndex
        let body = Data(#"{"signedTransaction":""#.utf8) + line[(tab + 1)...] + Data(#""}"#.utf8)
        return (String(decoding: line[..<tab], as: UTF8.self), body)
    }
    try printJSON(
        runLoad(port: port, count: entries.count, connections: connections) { index in
            LoadRequest(
                method: "POST", path: "/v1/subscribers/\(entries[index].0)/transactions",
                headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"], body: entries[index].1)
        })
}

/// `get`: N GETs of `--path`, or of `/v1/subscribers/{id}` for customers picked at random from `--transactions`.
func get(_ arguments: [String]) throws {
    guard let portText = argument("port", arguments), let port = UInt16(portText) else {
        fail("get needs --port P and --path PATH or --transactions FILE --key KEY")
    }
    let connections = Int(argument("connections", arguments) ?? "16") ?? 16
    let count = Int(argument("requests", arguments) ?? "50000") ?? 50_000
    let headers = argument("key", arguments).map { ["Authorization": "Bearer \($0)"] } ?? [:]
    if let fixed = argument("path", arguments) {
        try printJSON(
            runLoad(port: port, count: count, connections: connections) { _ in
                LoadRequest(method: "GET", path: fixed, headers: headers, body: nil)
            })
        return
    }
    guard let path = argument("transactions", arguments) else { fail("get needs --path or --transactions") }
    let ids = try lines(path).map { line in String(decoding: line[..<(line.firstIndex(of: 0x09) ?? line.endIndex)], as: UTF8.self)
    }
    // A fixed permutation, so runs are comparable and no customer is asked twice in a row.
    var generator = SplitMix(seed: 42)
    let picks = (0..<count).map { _ in ids[Int(generator.next() % UInt64(ids.count))] }
    try printJSON(
        runLoad(port: port, count: count, connections: connections) { index in
            LoadRequest(method: "GET", path: "/v1/subscribers/\(picks[index])", headers: headers, body: nil)
        })
}

/// A small deterministic random number generator (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
