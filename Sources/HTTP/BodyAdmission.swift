/// Which bodies the server takes in, and the answers to those it does not.
extension ServerCore {
    /// The answer to a request whose declared body is not taken, before any of it is read; nil
    /// when it is, its length then held for it in the body budget until the request ends.
    ///
    /// - A Content-Length over `maxBodyBytes`, however many digits it has: 413.
    /// - One the budget has no room for: 503 with `Retry-After`, since it may fit in a moment.
    func admit(
        _ declared: DeclaredLength, into body: inout RequestBody, method: String, path: String,
        started: ContinuousClock.Instant
    ) -> HTTPResponse? {
        switch declared {
        case .none, .invalid:
            // An invalid length was refused with the head (`refusal(of:)`).
            return nil
        case .tooLarge:
            return refusedBody(.tooLarge, method: method, path: path, started: started)
        case .bytes(let length) where length > maxBodyBytes:
            return refusedBody(.tooLarge, method: method, path: path, started: started)
        case .bytes(let length):
            guard body.reserve(declared: length, from: bodyBudget) else {
                return refusedBody(.overBudget, method: method, path: path, started: started)
            }
            return nil
        }
    }

    /// The answer to a body refused before or while it arrived, counted in the metrics of the
    /// route `path` would have reached.
    func refusedBody(
        _ refusal: RequestBody.Refusal, method: String, path: String, started: ContinuousClock.Instant
    ) -> HTTPResponse {
        let answer: HTTPResponse
        switch refusal {
        case .tooLarge:
            answer = .error(
                status: 413, code: "payload_too_large", message: "The request body is larger than \(maxBodyBytes) bytes.")
        case .overBudget:
            answer = Self.retryLater(
                "server_busy", "The server is receiving as many request bodies as it holds at once: send it again shortly.")
        }
        return refused(answer, method: method, path: path, started: started)
    }
}
