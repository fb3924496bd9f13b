/// Why a calibration fit was refused: a stable ``Code`` for programs and a message for people.
///
/// A struct wrapping a private enum, as the project's other errors do, so codes can be added
/// without breaking the API.
public struct FitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value a program can compare with `==`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case tooFewSamples, degenerate, notAnEllipsoid
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Fewer samples than the model has unknowns (or than the fit's minimum).
        public static let tooFewSamples = Code(.tooFewSamples)
        /// The samples do not determine the model (e.g. all in one plane) or contain NaN.
        public static let degenerate = Code(.degenerate)
        /// The fitted quadric is not an ellipsoid (an eigenvalue of its shape matrix is not
        /// positive), which happens with poor orientation coverage.
        public static let notAnEllipsoid = Code(.notAnEllipsoid)

        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: A sentence for people.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
