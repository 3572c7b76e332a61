import Storage
/// The status (and `Location`) a webhook receiver answered one attempt with, and what that
/// makes of the attempt.
///
/// Only a 2xx is a delivery. A 3xx is a failed attempt whatever it points at: the sender never
/// follows a redirect, which would POST the event with its `Authorization` and signature headers
/// to wherever the receiver says (another host, an internal address). The `Location` goes into
/// the reason, quoted and bounded, so that an operator can see where the URL has moved and
/// correct the configuration.
package struct WebhookAnswer: Sendable, Equatable {
    package var status: Int
    /// The `Location` header, when there was one.
    package var location: String?

    /// The most bytes of a `Location` quoted in a reason.
    package static let maxQuotedLocationBytes = 200

    package var outcome: DeliveryOutcome {
        switch (status, location) {
        case (200..<300, _):
            return .delivered(status: status)
        case (300..<400, let location?):
            return .failed(status: status, reason: "answered HTTP \(status) (redirect to \(Self.quoted(location)), not followed)")
        default:
            return .failed(status: status, reason: "answered HTTP \(status)")
        }
    }

    /// `location` as printable ASCII, at most `maxQuotedLocationBytes` long: any other byte of its
    /// UTF-8 (controls, spaces, non-ASCII) is percent-encoded, as it would be in a URI, so that a
    /// reason shown in a terminal or a log holds no control sequences; a longer one ends in "...".
    package static func quoted(_ location: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var quoted: [UInt8] = []
        for byte in location.utf8 {
            let piece = (0x21..<0x7F).contains(byte) ? [byte] : [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            guard quoted.count + piece.count <= maxQuotedLocationBytes else {
                return String(decoding: quoted, as: UTF8.self) + "..."
            }
            quoted += piece
        }
        return String(decoding: quoted, as: UTF8.self)
    }
}
