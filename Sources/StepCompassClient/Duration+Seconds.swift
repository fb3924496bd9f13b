extension Duration {
    /// `5 s`, `1.5 s`: how the client states a wait in its messages.
    var secondsText: String {
        let (seconds, attoseconds) = components
        let tenths = (Double(seconds) + Double(attoseconds) / 1e18) * 10
        let rounded = Int(tenths.rounded())
        return rounded % 10 == 0 ? "\(rounded / 10) s" : "\(rounded / 10).\(rounded % 10) s"
    }
}
