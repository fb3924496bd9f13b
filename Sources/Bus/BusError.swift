/// An error from a bus: a stable ``Code`` for programs and a message for people.
///
/// A struct wrapping a private enum (as Hummingbird's `PersistError` does), so codes can be added
/// without breaking the API.
public struct BusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value a program can switch on with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case invalidTopic, notConnected, connectionFailed, subscriptionRejected, timeout, closed
            case invalidConfiguration, protocolError, payloadTooLarge, notAuthorized
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// A topic name or filter breaks MQTT's rules.
        public static let invalidTopic = Code(.invalidTopic)
        /// The operation needs a connection and there is none.
        public static let notConnected = Code(.notConnected)
        /// The broker could not be reached or refused the connection.
        public static let connectionFailed = Code(.connectionFailed)
        /// The broker refused a subscription (SUBACK failure code).
        public static let subscriptionRejected = Code(.subscriptionRejected)
        /// No answer within the allowed time.
        public static let timeout = Code(.timeout)
        /// The bus was closed.
        public static let closed = Code(.closed)
        /// A configuration value is out of range.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The broker or library reported a protocol violation.
        public static let protocolError = Code(.protocolError)
        /// A payload is larger than allowed.
        public static let payloadTooLarge = Code(.payloadTooLarge)
        /// The broker denied access (bad credentials or ACL).
        public static let notAuthorized = Code(.notAuthorized)

        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people: what failed and, where known, why.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// A topic name or filter breaks MQTT's rules.
    public static func invalidTopic(_ topic: String, reason: String) -> BusError {
        BusError(.invalidTopic, "invalid topic '\(topic)': \(reason)")
    }
}
