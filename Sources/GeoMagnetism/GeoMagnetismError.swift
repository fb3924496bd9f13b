/// The one error type of the `GeoMagnetism` module.
///
/// Every failure in this module, from a malformed coefficient file to a date outside the model's five-year
/// life, is reported as a `GeoMagnetismError`. Its ``code`` says *what kind* of failure it was, so callers
/// can react to it (for example, fall back to magnetic north on ``outsideValidity``), and ``detail`` says
/// *which* input caused it, so a log line or an error report on the bus is self-explanatory.
///
/// Two errors compare equal when their kinds match; the detail text is ignored. That makes
/// `#expect(throws: GeoMagnetismError.outsideValidity) { ... }` and `catch GeoMagnetismError.invalidLatitude`
/// work without knowing the exact message.
public struct GeoMagnetismError: Error, Hashable, CustomStringConvertible {
    private enum Code: String, Hashable, Sendable {
        case outsideValidity
        case invalidLatitude
        case invalidLongitude
        case invalidAltitude
        case invalidDate
        case malformedHeader
        case malformedCoefficients
        case truncatedFile
        case resourceNotFound
    }

    private let code: Code

    /// A human-readable explanation naming the offending value or line.
    ///
    /// It exists so that a caught error can be logged or reported as is. It is not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// The kind of failure as a stable, machine-readable name, e.g. `"outsideValidity"`.
    ///
    /// Use it for error codes in JSON reports; it does not change with the wording of ``detail``.
    public var name: String { code.rawValue }

    /// The kind of failure followed by its detail, e.g.
    /// `GeoMagnetismError.outsideValidity: decimal year 2031 is outside WMM-2025's validity 2025.0...2030.0`.
    public var description: String {
        detail.isEmpty ? "GeoMagnetismError.\(code.rawValue)" : "GeoMagnetismError.\(code.rawValue): \(detail)"
    }

    /// Compares the kinds of two errors and ignores their details, so that a test or a `catch` can match a kind.
    public static func == (lhs: GeoMagnetismError, rhs: GeoMagnetismError) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the kind only, consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension GeoMagnetismError {
    /// The date lies outside the model's validity (for WMM2025, 2025.0...2030.0).
    ///
    /// A geomagnetic model only predicts the secular variation for its five-year life; past it the error grows
    /// quickly. Use the `allowOutsideValidity` variants to extrapolate deliberately.
    public static var outsideValidity: GeoMagnetismError { .init(.outsideValidity, "") }

    /// The latitude is NaN or outside -90...90 degrees.
    public static var invalidLatitude: GeoMagnetismError { .init(.invalidLatitude, "") }

    /// The longitude is NaN or outside -180...360 degrees.
    public static var invalidLongitude: GeoMagnetismError { .init(.invalidLongitude, "") }

    /// The altitude is not finite or outside the model's range, -1,000 m to 850,000 m above the WGS-84 ellipsoid.
    public static var invalidAltitude: GeoMagnetismError { .init(.invalidAltitude, "") }

    /// The decimal year is NaN or infinite.
    public static var invalidDate: GeoMagnetismError { .init(.invalidDate, "") }

    /// The first line of a coefficient file is not `epoch model-name [...] release-date`, or names another model.
    public static var malformedHeader: GeoMagnetismError { .init(.malformedHeader, "") }

    /// A coefficient line is not `n m g h ġ ḣ` with valid degree and order, or a term is repeated or missing.
    public static var malformedCoefficients: GeoMagnetismError { .init(.malformedCoefficients, "") }

    /// The coefficient file ends before its `9999...` end marker, so it was cut short.
    public static var truncatedFile: GeoMagnetismError { .init(.truncatedFile, "") }

    /// The bundled `WMM.COF` resource could not be found or read.
    public static var resourceNotFound: GeoMagnetismError { .init(.resourceNotFound, "") }

    /// Returns this kind of error with a detail message.
    func with(_ detail: String) -> GeoMagnetismError {
        GeoMagnetismError(code, detail)
    }
}
