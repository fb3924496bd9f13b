extension Duration {
    /// The duration in seconds, with its fraction (`.milliseconds(1_500)` is 1.5).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    /// The duration in whole milliseconds, rounded toward zero (`.microseconds(1_999)` is 1).
    public var inMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
