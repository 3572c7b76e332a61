import Dispatch

extension DispatchTime {
    /// The moment `duration` from now, for the Dispatch waits threads block in (whole
    /// nanoseconds; anything finer is dropped).
    public static func after(_ duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        return .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }
}
