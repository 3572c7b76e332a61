/// A type that writes its own JSON: byte for byte what `JSONValueEncoder` writes through its
/// `Codable` conformance (members sorted by the UTF-8 bytes of their keys, nil ones left out).
///
/// For the models written into every stored state, fact and event, where the generic `Codable`
/// path costs much more a document. `JSONValueEncoder` uses the conformance wherever the value
/// appears; each conformance has a test that holds it equal to `Codable`, with and without each
/// field.
public protocol SortedJSONWritable: Encodable {
    func writeSortedJSON(into writer: inout JSONWriter) throws
}
