extension Duration {
    /// The duration in seconds, fractions included (down to the attosecond Double can hold):
    /// what metrics in seconds record.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
