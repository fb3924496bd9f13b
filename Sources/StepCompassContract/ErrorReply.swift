public import Foundation

/// The error reply of every request/response topic (`markers/nearest`, `activity/history`, `journal/walks`):
/// `{"error": {"code", "message"}, "correlationId"}`, the request's `correlationId` when it gave one.
public struct ErrorReply: Codable, Sendable, Hashable {
    /// The contract's error object `{"code", "message"}`: of an error reply, and of a failed marker fetch in
    /// `markers/status`.
    public struct Body: Codable, Sendable, Hashable {
        /// Stable: `badRequest`, `notFound`, `unavailable`, ...
        public var code: String
        /// For people.
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Body
    public var correlationId: CorrelationID?

    public init(code: String, message: String, correlationId: CorrelationID?) {
        error = Body(code: code, message: message)
        self.correlationId = correlationId
    }

    /// The reply as JSON (sorted keys, slashes unescaped).
    public var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data(#"{"error":{"code":"unavailable","message":"internal error"}}"#.utf8)
    }
}
