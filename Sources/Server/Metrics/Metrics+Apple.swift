import AppStoreServerAPI

extension Metrics {
    /// Counts one attempt at a call to Apple (`AppStoreServerAPIClient`'s `onAttempt`).
    package var appleAPIAttempted: @Sendable (String, AppStoreServerAPIClient.AttemptOutcome) -> Void {
        { [appleAPIRequests] endpoint, outcome in
            let status =
                switch outcome {
                case .answered(let code): String(code)
                case .noAnswer: "none"
                case .heldBack: "held"
                }
            appleAPIRequests.increment(label: "endpoint=\"\(Metrics.escape(endpoint))\",status=\"\(status)\"")
        }
    }
}
