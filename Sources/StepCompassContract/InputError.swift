/// Why an input message was rejected: a sentence that is published on the error topic and logged.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
