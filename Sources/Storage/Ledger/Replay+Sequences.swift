import Foundation
import JSON
import Subscriptions

extension Replay {
    /// Gives every event made again for the customer it was made for the `sequence` it had: a
    /// webhook consumer has it under that number, and a replay under changed rules that makes an
    /// event more (or fewer) earlier in a customer's history would number the later ones again.
    /// Events new to this replay, or made for another customer now, are numbered after the
    /// highest number their customer's events have, in position order (they are never sent; a
    /// `/v1/events` reader sees them last), and each customer counts on from the highest number
    /// its events have, so no number is given twice. A replay that makes every event as it was
    /// changes nothing here.
    ///
    /// `old`: the events before the replay, each `[id, position, json, customer, sequence, app_id]`.
    static func keepSequences(_ old: [[SQLValue]], in transaction: WriteTransaction) throws {
        struct Customer: Hashable {
            var appId: String
            var id: String
        }
        var before: [String: (customer: Customer, sequence: Int64)] = [:]
        // The highest number each customer's events had: given, whether made again or not.
        var given: [Customer: Int64] = [:]
        for row in old {
            guard let id = row[0].textValue, let customerId = row[3].textValue, let sequence = row[4].integerValue,
                let appId = row[5].textValue
            else { continue }
            let customer = Customer(appId: appId, id: customerId)
            before[id] = (customer, sequence)
            given[customer] = max(given[customer] ?? 0, sequence)
        }
        guard !before.isEmpty else { return }
        var numbers: [String: Int64] = [:]
        var fresh: [Customer: [String]] = [:]
        var touched: Set<Customer> = []
        var madeAgain: Set<String> = []
        let made = try transaction.query(
            "SELECT id, app_id, customer, sequence FROM events WHERE customer IS NOT NULL ORDER BY position")
        for row in made {
            guard let id = row[0].textValue, let appId = row[1].textValue, let customerId = row[2].textValue else {
                continue
            }
            let customer = Customer(appId: appId, id: customerId)
            if let was = before[id], was.customer == customer {
                madeAgain.insert(id)
                guard row[3].integerValue != was.sequence else { continue }
                numbers[id] = was.sequence
                touched.insert(customer)
            } else {
                fresh[customer, default: []].append(id)
                touched.insert(customer)
            }
        }
        // An event no longer made took its number with it: its customer's later ones keep theirs.
        for (id, was) in before where !madeAgain.contains(id) { touched.insert(was.customer) }
        var highest: [Customer: Int64] = [:]
        for customer in touched { highest[customer] = given[customer] ?? 0 }
        for (customer, ids) in fresh {
            let base = highest[customer] ?? 0
            for (offset, id) in ids.enumerated() { numbers[id] = base + Int64(offset) + 1 }
            highest[customer] = base + Int64(ids.count)
        }
        for (id, sequence) in numbers { try renumber(id, to: sequence, in: transaction) }
        // Each customer touched counts on from the highest number its events have had.
        for (customer, top) in highest {
            guard
                let json = try transaction.query(
                    "SELECT json FROM customers WHERE app_id = ? AND app_user_id = ?",
                    [.text(customer.appId), .text(customer.id)]
                ).first?.first?.textValue
            else { continue }
            var state = try LedgerRows.decode(CustomerState.self, json)
            guard state.lastSequence < top else { continue }
            state.lastSequence = top
            try transaction.write(
                "UPDATE customers SET json = ? WHERE app_id = ? AND app_user_id = ?",
                [.text(try LedgerRows.encode(state)), .text(customer.appId), .text(customer.id)])
        }
    }

    /// Sets event `id`'s `sequence`, in its row and in its JSON.
    private static func renumber(_ id: String, to sequence: Int64, in transaction: WriteTransaction) throws {
        guard let json = try transaction.query("SELECT json FROM events WHERE id = ?", [.text(id)]).first?.first?.textValue
        else { return }
        var event = try Event(json: JSONValue(parsing: Data(json.utf8)))
        event.sequence = sequence
        try transaction.write(
            "UPDATE events SET sequence = ?, json = ? WHERE id = ?",
            [.integer(sequence), .text(try LedgerRows.encode(event)), .text(id)])
    }
}
