extension SubscribersAPI.Refusal {
    /// A refusal answered with RevenueCat's `error`: `status` and `{"code", "message"}`.
    package init(_ error: RevenueCatError, status: Int = 400, _ message: String) {
        self.init(response: error.response(status: status, message))
    }
}

extension Result where Failure == SubscribersAPI.Refusal {
    /// Refused with RevenueCat's `error` (`SubscribersAPI.Refusal.init(_:status:_:)`).
    static func refused(_ error: RevenueCatError, status: Int = 400, _ message: String) -> Self {
        .failure(SubscribersAPI.Refusal(error, status: status, message))
    }
}
