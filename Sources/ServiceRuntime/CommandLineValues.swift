public import Configuration

/// Options given on the command line, as configuration keys, for the front of the provider hierarchy.
///
/// swift-configuration's advice for swift-argument-parser: declare options optional with no default and
/// copy the ones the user gave into an `InMemoryProvider`, so a flag wins over `FLAG_NAME` and the file.
/// Options left out (`nil`) are simply not set.
public struct CommandLineValues: Sendable {
    /// The values set so far.
    public private(set) var values: [AbsoluteConfigKey: ConfigValue] = [:]

    public init() {}

    /// Sets a dotted key (`steps.per.update`) when `content` is not nil.
    public mutating func set(_ key: String, _ content: ConfigContent?, secret: Bool = false) {
        guard let content else { return }
        values[AbsoluteConfigKey(key.split(separator: ".").map(String.init))] = ConfigValue(content, isSecret: secret)
    }

    public mutating func set(_ key: String, _ value: String?, secret: Bool = false) {
        set(key, value.map { .string($0) }, secret: secret)
    }

    public mutating func set(_ key: String, _ value: Int?) {
        set(key, value.map { .int($0) })
    }

    public mutating func set(_ key: String, _ value: Double?) {
        set(key, value.map { .double($0) })
    }
}
