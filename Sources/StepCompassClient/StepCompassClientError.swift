/// Why a `stepcompass` command could not do what was asked: a stable ``Code`` for programs and a
/// sentence for people that says what to do about it.
///
/// A struct wrapping a private enum (like `BusError`), so codes can be added without breaking callers.
public struct StepCompassClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value a program can switch on with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case invalidInput, noDevice, severalDevices, noReply, errorReply, unreadableReply, brokerUnreachable, writeFailed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// An argument is out of range or malformed (checked before anything is sent).
        public static let invalidInput = Code(.invalidInput)
        /// No device has published, so there is none to default to.
        public static let noDevice = Code(.noDevice)
        /// Several devices have published and none was chosen.
        public static let severalDevices = Code(.severalDevices)
        /// A request got no reply in time.
        public static let noReply = Code(.noReply)
        /// The service answered with an error reply.
        public static let errorReply = Code(.errorReply)
        /// The service's reply could not be decoded.
        public static let unreadableReply = Code(.unreadableReply)
        /// The broker could not be reached or refused the connection.
        public static let brokerUnreachable = Code(.brokerUnreachable)
        /// A file the command writes (such as a walk's GPX) could not be written.
        public static let writeFailed = Code(.writeFailed)

        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people: what failed and what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The process exit status for this error: 69 (`EX_UNAVAILABLE`) when a broker or service is not
    /// there, so scripts can tell "try again later" from "wrong input" (1).
    public var exitCode: Int32 {
        code == .brokerUnreachable || code == .noReply ? 69 : 1
    }

    /// A bad argument.
    public static func invalidInput(_ message: String) -> StepCompassClientError {
        StepCompassClientError(.invalidInput, message)
    }

    /// The broker could not be reached.
    /// - Parameters:
    ///   - host: The broker's host.
    ///   - port: The broker's port.
    ///   - reason: The connection error, such as `Connection refused`.
    public static func brokerUnreachable(host: String, port: Int, reason: String) -> StepCompassClientError {
        let lowered = reason.prefix(1).lowercased() + reason.dropFirst()
        let trimmed = lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
        let advice: String
        if trimmed.contains("refused the connection") || trimmed.lowercased().contains("not authori") {
            advice = "Check --mqtt-username/--mqtt-password (MQTT_USERNAME/MQTT_PASSWORD)."
        } else {
            advice = "Start it (make run) or set --mqtt-host/--mqtt-port (MQTT_HOST/MQTT_PORT)."
        }
        return StepCompassClientError(.brokerUnreachable, "cannot reach the MQTT broker at \(host):\(port) (\(trimmed)). \(advice)")
    }
}
