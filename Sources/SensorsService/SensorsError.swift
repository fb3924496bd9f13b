/// A setting or file the sensor publisher cannot work with: a stable ``Code`` and a message for people.
public struct SensorsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value a program can compare with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case invalidConfiguration, unreadableRecording, unwritableRecording
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A device id, speed or duration out of range.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A recording that cannot be read or has a malformed line.
        public static let unreadableRecording = Code(.unreadableRecording)
        /// A recording file that cannot be created or written.
        public static let unwritableRecording = Code(.unwritableRecording)

        public var description: String { value.rawValue }
    }

    /// The kind of error.
    public let code: Code
    /// A sentence for people.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of error.
    ///   - message: What was wrong with which value.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
