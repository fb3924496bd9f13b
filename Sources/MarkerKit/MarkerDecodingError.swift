/// Why a whole marker document could not be read at all.
///
/// Only document-level problems throw: invalid or truncated JSON, or JSON that is not a
/// GeoJSON FeatureCollection. A single bad feature never throws; it is rejected and counted in
/// ``DecodeReport``, so one broken entry cannot take the whole marker service down.
///
/// Compare with the static members (`error == .notAFeatureCollection`); equality looks at the
/// kind of error and, for ``invalidJSON(offset:)``, the byte offset, never at the message text,
/// which carries detail for people and may change.
public struct MarkerDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidJSON(offset: Int)
        case notAFeatureCollection
    }

    private let code: Code
    /// A human-readable explanation, suitable for the `error.message` of the status topic.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The input is not valid JSON (syntax error, truncated document, bad escape) at `offset`.
    public static func invalidJSON(offset: Int) -> MarkerDecodingError {
        MarkerDecodingError(.invalidJSON(offset: offset), "invalid JSON at byte \(offset)")
    }

    static func invalidJSON(offset: Int, _ detail: String) -> MarkerDecodingError {
        MarkerDecodingError(.invalidJSON(offset: offset), "invalid JSON at byte \(offset): \(detail)")
    }

    /// The JSON is valid but is not a GeoJSON FeatureCollection with a `features` array.
    public static let notAFeatureCollection = MarkerDecodingError(
        .notAFeatureCollection, "not a GeoJSON FeatureCollection")

    static func notAFeatureCollection(_ detail: String) -> MarkerDecodingError {
        MarkerDecodingError(.notAFeatureCollection, "not a GeoJSON FeatureCollection: \(detail)")
    }

    /// A stable machine-readable code: `invalidJSON` or `notAFeatureCollection`.
    public var codeName: String {
        switch code {
        case .invalidJSON: "invalidJSON"
        case .notAFeatureCollection: "notAFeatureCollection"
        }
    }

    /// The byte offset of a JSON syntax error, `nil` for other errors.
    public var offset: Int? {
        if case .invalidJSON(let offset) = code { return offset }
        return nil
    }

    public var description: String { message }

    public static func == (lhs: MarkerDecodingError, rhs: MarkerDecodingError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}
