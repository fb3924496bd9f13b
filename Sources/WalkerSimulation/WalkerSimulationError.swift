/// Why a simulator could not be built: a stable ``Code`` for programs and a message for people.
///
/// A struct wrapping a private enum (as Hummingbird's `PersistError` does), so codes can be added without
/// breaking the API. Running a simulator never fails; only its configuration and the start field can.
public struct WalkerSimulationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value a program can compare with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case invalidConfiguration, fieldUnavailable
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A configuration value out of its range (a rate of 0, a NaN latitude, an empty loop, ...).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The geomagnetic field source could not give the field at the start.
        public static let fieldUnavailable = Code(.fieldUnavailable)

        public var description: String { value.rawValue }
    }

    /// The kind of error, stable across releases.
    public let code: Code
    /// A sentence for people naming the offending setting.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// Equal when the codes are: the message is for people, not for matching.
    public static func == (lhs: WalkerSimulationError, rhs: WalkerSimulationError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Any invalid configuration, for matching with `==`.
    public static let invalidConfiguration = WalkerSimulationError(.invalidConfiguration, "invalid walker configuration")
    /// Any failure of the field source, for matching with `==`.
    public static let fieldUnavailable = WalkerSimulationError(.fieldUnavailable, "geomagnetic field unavailable")

    static func invalidConfiguration(_ detail: String) -> WalkerSimulationError {
        WalkerSimulationError(.invalidConfiguration, detail)
    }

    static func fieldUnavailable(_ detail: String) -> WalkerSimulationError {
        WalkerSimulationError(.fieldUnavailable, detail)
    }

    static func fieldUnavailable(_ underlying: any Error) -> WalkerSimulationError {
        WalkerSimulationError(.fieldUnavailable, "the geomagnetic field at the start could not be computed: \(underlying)")
    }
}
