/// The one public error of the compass service: a failure that stops it (bad inputs never do).
public struct CompassServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: String, Sendable, Hashable {
        case invalidConfiguration
        case magneticModelUnavailable
    }

    private let code: Code
    /// What went wrong, naming the option or resource.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// An option has a value the service cannot use.
    /// - Parameter detail: Which option and why.
    public static func invalidConfiguration(_ detail: String) -> CompassServiceError {
        CompassServiceError(.invalidConfiguration, detail)
    }

    /// The World Magnetic Model could not be loaded, so no declination can be computed.
    /// - Parameter detail: The underlying error.
    public static func magneticModelUnavailable(_ detail: String) -> CompassServiceError {
        CompassServiceError(.magneticModelUnavailable, detail)
    }

    /// The kind of failure and its detail.
    public var description: String { "\(code.rawValue): \(detail)" }
}
