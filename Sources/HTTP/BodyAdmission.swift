/// Which bodies the server takes in, and the answers to those it does not.
extension ServerCore {
    /// The largest body taken for `path`: `maxBodyBytes`, or less where the router says so
    /// (`Router.limitBodies`).
    func bodyLimit(for path: String) -> Int {
        router.bodyLimit(for: path).map { min($0, maxBodyBytes) } ?? maxBodyBytes
    }

    /// The answer to a request whose declared body is not taken, before any of it is read; nil
    /// when it is: a Content-Length over `limit`, however many digits it has, is 413.
    ///
    /// A body takes its share of the body budget as its bytes arrive, declared or chunked, never
    /// from what its head declares: clients that declare large bodies and send none hold nothing,
    /// so they cannot keep the bodies of others (Apple's notifications) out.
    func admit(_ declared: DeclaredLength, limit: Int, method: String, path: String, started: ContinuousClock.Instant)
        -> HTTPResponse?
    {
        switch declared {
        case .tooLarge:
            return refusedBody(.tooLarge, limit: limit, method: method, path: path, started: started)
        case .bytes(let length) where length > limit:
            return refusedBody(.tooLarge, limit: limit, method: method, path: path, started: started)
        case .none, .invalid, .bytes:
            // An invalid length was refused with the head (`refusal(of:)`).
            return nil
        }
    }

    /// The answer to a body refused before or while it arrived, counted in the metrics of the
    /// route `path` would have reached.
    func refusedBody(
        _ refusal: RequestBody.Refusal, limit: Int, method: String, path: String, started: ContinuousClock.Instant
    ) -> HTTPResponse {
        let answer: HTTPResponse
        switch refusal {
        case .tooLarge:
            answer = .error(
                status: 413, code: "payload_too_large", message: "The request body is larger than \(limit) bytes.")
        case .overBudget:
            answer = .retryLater(
                "server_busy", "The server is receiving as many request bodies as it holds at once: send it again shortly.")
        }
        return refused(answer, method: method, path: path, started: started)
    }
}
