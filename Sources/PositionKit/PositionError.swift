/// An input the position calculator refuses: a stable ``Code`` for programs and a message for people.
///
/// A struct wrapping a private enum (as Hummingbird's `PersistError` does), so codes can be added
/// without breaking the API. The service turns one of these into a report on
/// `stepcompass/errors/position` and drops the message; the calculator's state is unchanged.
public struct PositionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value a program can compare with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case negativeStepCount, invalidHeading, invalidConfiguration, invalidState, stepOverflow
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A step count below zero: a cumulative count can never be negative.
        public static let negativeStepCount = Code(.negativeStepCount)
        /// A heading that is NaN or infinite.
        public static let invalidHeading = Code(.invalidHeading)
        /// A steps-per-update below 1 or a step length that is not a finite positive number.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A state to restore that cannot have come from a calculator (negative totals, NaN, more batches than steps).
        public static let invalidState = Code(.invalidState)
        /// The step total would no longer fit in an `Int`.
        public static let stepOverflow = Code(.stepOverflow)

        public var description: String { value.rawValue }
    }

    /// The kind of error, stable across releases.
    public let code: Code
    /// A sentence for people: what was wrong with which value.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// Two errors are equal when their codes are: the message is for people, not for matching.
    public static func == (lhs: PositionError, rhs: PositionError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A negative step count (any count, for matching with `==`).
    public static let negativeStepCount = PositionError(.negativeStepCount, "step count is negative")
    /// A NaN or infinite heading.
    public static let invalidHeading = PositionError(.invalidHeading, "heading is not a finite number")
    /// Settings the model cannot work with.
    public static let invalidConfiguration = PositionError(.invalidConfiguration, "invalid calculator configuration")
    /// A state that cannot be restored.
    public static let invalidState = PositionError(.invalidState, "position state cannot be restored")
    /// A step total too large for `Int`.
    public static let stepOverflow = PositionError(.stepOverflow, "step total overflows")

    static func negativeStepCount(_ count: Int) -> PositionError {
        PositionError(.negativeStepCount, "step count \(count) is negative; counts are cumulative and start at 0")
    }

    static func invalidHeading(_ degrees: Double) -> PositionError {
        PositionError(.invalidHeading, "heading \(degrees) is not a finite number of degrees")
    }

    static func invalidConfiguration(_ detail: String) -> PositionError {
        PositionError(.invalidConfiguration, detail)
    }

    static func invalidState(_ detail: String) -> PositionError {
        PositionError(.invalidState, detail)
    }

    static func stepOverflow(total: Int, adding: Int) -> PositionError {
        PositionError(.stepOverflow, "adding \(adding) steps to a total of \(total) overflows")
    }
}
