/// Why an input could not be read: one line, suitable as an HTTP 400 body shown in the phone app.
public struct PhoneFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The one-line reason, e.g. `sample 3 (accelerometer): values.x is missing`.
    public var reason: String

    /// Creates an error; newlines in `reason` are replaced by spaces so it stays on one line.
    public init(_ reason: String) {
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// The reason.
    public var description: String { reason }
}
