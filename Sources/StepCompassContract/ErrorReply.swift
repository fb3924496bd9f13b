public import Foundation

/// The error reply of every request/response topic (`markers/nearest`, `activity/history`, `journal/walks`):
/// `{"error": {"code", "message"}, "correlationId"}`, the request's `correlationId` when it gave one.
public struct ErrorReply: Encodable, Sendable, Equatable {
    public struct Body: Encodable, Sendable, Equatable {
        /// Stable: `badRequest`, `notFound`, `unavailable`, ...
        public var code: String
        /// For people.
        public var message: String
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
