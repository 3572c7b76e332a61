import AppStore
import JSON
import Subscriptions

extension ExpirationTimer: SortedJSONWritable {
    /// Written member by member: a timer is stored with nearly every notification, and the
    /// generic `Encodable` path costs more than the rest of its statement.
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.member("fireAtMs", fireAtMs)
        writer.member("originalTransactionId", originalTransactionId)
        writer.endObject()
    }
}
