extension Array where Element == PhoneSample {
    /// Stable sort by time.
    func sortedByTime() -> [PhoneSample] {
        enumerated().sorted { $0.element.time != $1.element.time ? $0.element.time < $1.element.time : $0.offset < $1.offset }.map(\.element)
    }
}
