/// What became of one POST to the notification endpoint; the HTTP layer maps it to a status.
package enum IngestOutcome: Equatable, Sendable {
    /// Committed to storage (state `received`, or what the hand-off made of it).
    case stored(uuid: String)
    /// Already stored under this `notificationUUID`; nothing changed.
    case duplicate(uuid: String)
    /// Validly signed by Apple but for another bundle or environment: stored as `held`.
    case held(uuid: String, reason: String)
    /// The body is not JSON or has no `signedPayload`.
    case badRequest(String)
    /// Signature, chain or payload verification failed; nothing stored but the reject log.
    case rejected(status: String, detail: String)
    /// No app with this id is configured.
    case unknownApp(String)
    /// Storage could not commit; Apple should retry.
    case unavailable(String)
    /// Too many notifications wait to be verified (`Ingest.maxQueuedVerifications`); Apple
    /// should retry.
    case busy

    /// The HTTP status Apple sees: 200–206 counts as delivered, anything else is retried.
    package var httpStatus: Int {
        switch self {
        case .stored, .duplicate, .held: 200
        case .badRequest: 400
        case .rejected: 401
        case .unknownApp: 404
        case .unavailable, .busy: 503
        }
    }
}
