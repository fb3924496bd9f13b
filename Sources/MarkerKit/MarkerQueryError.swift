/// Why a nearest-markers query got no answer; maps one-to-one onto the contract's error
/// reply `{"error": {"code", "message"}}`.
public struct MarkerQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case notFound
        case badRequest
    }

    private let code: Code
    /// A human-readable explanation for the reply's `message`.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The contract's error code: `notFound` or `badRequest`.
    public var codeName: String { code.rawValue }

    /// No marker has the requested id.
    public static let notFound = MarkerQueryError(.notFound, "no marker has this id")
    /// The request is out of range (count, latitude or longitude) or not a number.
    public static let badRequest = MarkerQueryError(.badRequest, "bad request")

    static func notFound(id: String) -> MarkerQueryError {
        MarkerQueryError(.notFound, "no marker with id \"\(id)\"")
    }

    static func badRequest(_ message: String) -> MarkerQueryError {
        MarkerQueryError(.badRequest, message)
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Errors are equal when their codes are; the message is detail for people.
    public static func == (lhs: MarkerQueryError, rhs: MarkerQueryError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}
