public import Configuration

extension ConfigReader {
    /// A number that may be written as a decimal or a whole number (`"every": 50` in a JSON file is an integer, which
    /// `double(forKey:)` alone would not read, silently falling back to the default).
    public func number(forKey key: ConfigKey) -> Double? {
        double(forKey: key) ?? int(forKey: key).map(Double.init)
    }

    /// ``number(forKey:)``, or `fallback` when the key is not set.
    public func number(forKey key: ConfigKey, default fallback: Double) -> Double {
        number(forKey: key) ?? fallback
    }
}
