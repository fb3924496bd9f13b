import Foundation

/// A World Magnetic Model: the spherical-harmonic description of Earth's main magnetic field that NOAA and
/// the British Geological Survey publish every five years.
///
/// A compass points to magnetic north; to show true north the compass service adds the declination that this
/// model predicts for the device's position and date. ``wmm2025()`` loads the official WMM2025 coefficients
/// shipped with this module, byte for byte as NOAA/CIRES publish them, because hand-typed coefficient tables
/// have caused errors of tens of degrees in other projects.
///
/// The synthesis follows NOAA's reference C library (`GeomagnetismLibrary.c`) step by step: geodetic to
/// geocentric conversion on WGS-84, Schmidt semi-normalised associated Legendre functions, the field on a
/// 6371.2 km reference sphere with coefficients g(t) = g + ġ·(t − epoch), and rotation of the result back to
/// the geodetic north/east/down frame. It reproduces NOAA's official test values to their printed precision.
///
/// The value is immutable and `Sendable`; build it once and share it. Evaluating it allocates no memory.
public struct WorldMagneticModel: Sendable {
    /// The model epoch as a decimal year (2025.0 for WMM2025); the coefficients are given for this instant.
    public let epoch: Double
    /// The model name from the coefficient file header, e.g. `WMM-2025`.
    public let modelName: String
    /// The release date as written in the coefficient file header, e.g. `11/13/2024`.
    public let releaseDate: String
    /// The highest spherical-harmonic degree in the model (12 for WMM).
    public let degree: Int

    /// The radius of the geomagnetic reference sphere in km, 6371.2, on which the coefficients are defined.
    public static let referenceRadius = 6371.2

    /// How many years after its epoch a WMM is valid: the secular variation is only forecast for five years.
    public static let lifespan = 5.0

    let g: [Double]
    let h: [Double]
    let gDot: [Double]
    let hDot: [Double]
    /// Ratio of the Schmidt semi-normalised to the Gauss-normalised Legendre function for each (n, m).
    let schmidtNormalisation: [Double]
    /// The recursion factor ((n−1)² − m²) / ((2n−1)(2n−3)) of the Gauss-normalised functions for each (n, m).
    let recursionFactor: [Double]

    /// The span of decimal years the model is valid for, `epoch...epoch + 5` (2025.0...2030.0 for WMM2025).
    public var validity: ClosedRange<Double> {
        epoch...(epoch + Self.lifespan)
    }

    /// Builds a model from the text of any WMM coefficient file (`WMM.COF`, e.g. WMM2020 or WMM2025).
    ///
    /// Use it to load a newer or older model than the bundled one without changing code. Fields are read as
    /// whitespace-separated values, so variants with different column spacing parse the same.
    ///
    /// - Parameter text: The whole file: a header line `epoch model-name [release-year] release-date`, lines
    ///   of `n m g h ġ ḣ` for n = 1...N (N ≤ 12), and a line of `9`s.
    /// - Throws: ``GeoMagnetismError/malformedHeader`` when the header is not an epoch and a model name (or the
    ///   name's year disagrees with the epoch), ``GeoMagnetismError/malformedCoefficients`` for a bad, repeated or
    ///   missing term, and ``GeoMagnetismError/truncatedFile`` when the `9999` end marker is missing.
    public init(coefficientFile text: String) throws(GeoMagnetismError) {
        self.init(try CoefficientFile(parsing: text))
    }

    init(_ file: CoefficientFile) {
        epoch = file.epoch
        modelName = file.modelName
        releaseDate = file.releaseDate
        degree = file.degree
        g = file.g
        h = file.h
        gDot = file.gDot
        hDot = file.hDot

        let count = file.g.count
        var norm = [Double](repeating: 0, count: count)
        var factor = [Double](repeating: 0, count: count)
        norm[0] = 1
        for n in 1...CoefficientFile.maximumDegree {
            let first = CoefficientFile.index(n: n, m: 0)
            norm[first] = norm[CoefficientFile.index(n: n - 1, m: 0)] * Double(2 * n - 1) / Double(n)
            for m in 1...n {
                norm[first + m] =
                    norm[first + m - 1]
                    * (Double((n - m + 1) * (m == 1 ? 2 : 1)) / Double(n + m)).squareRoot()
            }
            for m in 0...n where n > 1 && m <= n - 2 {
                factor[first + m] = Double((n - 1) * (n - 1) - m * m) / Double((2 * n - 1) * (2 * n - 3))
            }
        }
        schmidtNormalisation = norm
        recursionFactor = factor
    }

    /// Loads the official World Magnetic Model 2025, bundled with this module as NOAA's `WMM.COF`.
    ///
    /// The file is checked for the WMM-2025 header, as NOAA's readme asks, so a wrong or damaged resource is
    /// reported instead of silently producing a wrong declination.
    ///
    /// - Returns: The model, valid from 2025.0 to 2030.0.
    /// - Throws: ``GeoMagnetismError/resourceNotFound`` if the resource is missing or unreadable, or a parsing
    ///   error if its content is not the WMM2025 coefficient file.
    public static func wmm2025() throws(GeoMagnetismError) -> WorldMagneticModel {
        guard let url = Bundle.module.url(forResource: "WMM", withExtension: "COF") else {
            throw GeoMagnetismError.resourceNotFound.with("WMM.COF is missing from the GeoMagnetism bundle")
        }
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw GeoMagnetismError.resourceNotFound.with("WMM.COF at \(url.path) could not be read: \(error)")
        }
        let model = try WorldMagneticModel(coefficientFile: text)
        guard model.epoch == 2025.0, model.modelName == "WMM-2025", model.degree == 12 else {
            throw GeoMagnetismError.malformedHeader.with(
                "the bundled WMM.COF holds \(model.modelName) epoch \(model.epoch) to degree \(model.degree), not WMM-2025"
            )
        }
        return model
    }

    /// Computes the field at a place and time within the model's validity.
    ///
    /// - Parameters:
    ///   - latitude: Geodetic latitude in degrees, -90...90.
    ///   - longitude: Longitude in degrees, -180...360 (240 is the same as -120).
    ///   - altitude: Height above the WGS-84 ellipsoid in metres, -1,000...850,000.
    ///   - decimalYear: The date as a decimal year, e.g. from ``decimalYear(of:)``.
    /// - Returns: The field in the geodetic north/east/down frame with its derived elements.
    /// - Throws: ``GeoMagnetismError/outsideValidity`` outside ``validity``, and the input errors of
    ///   ``GeodeticPosition/init(latitude:longitude:altitude:)`` or ``GeoMagnetismError/invalidDate``.
    public func field(
        latitude: Double,
        longitude: Double,
        altitude: Double,
        decimalYear: Double
    ) throws(GeoMagnetismError) -> MagneticField {
        try field(
            latitude: latitude, longitude: longitude, altitude: altitude, decimalYear: decimalYear,
            allowOutsideValidity: false)
    }

    /// Computes the field at a place and time, optionally extrapolating past the model's validity.
    ///
    /// Extrapolation keeps a compass showing a plausible true north with an outdated model, at a growing cost
    /// in accuracy (roughly tenths of a degree per year past the end), instead of failing.
    ///
    /// - Parameters:
    ///   - latitude: Geodetic latitude in degrees, -90...90.
    ///   - longitude: Longitude in degrees, -180...360.
    ///   - altitude: Height above the WGS-84 ellipsoid in metres, -1,000...850,000.
    ///   - decimalYear: The date as a decimal year.
    ///   - allowOutsideValidity: When `true`, dates outside ``validity`` are extrapolated linearly instead of
    ///     throwing.
    /// - Throws: ``GeoMagnetismError/outsideValidity`` (only when `allowOutsideValidity` is `false`), the
    ///   position errors, or ``GeoMagnetismError/invalidDate`` for a NaN or infinite date.
    public func field(
        latitude: Double,
        longitude: Double,
        altitude: Double,
        decimalYear: Double,
        allowOutsideValidity: Bool
    ) throws(GeoMagnetismError) -> MagneticField {
        let position = try GeodeticPosition(latitude: latitude, longitude: longitude, altitude: altitude)
        try checkDate(decimalYear, allowOutsideValidity: allowOutsideValidity)
        return extrapolatedField(at: position, decimalYear: decimalYear)
    }

    /// Computes the field at a precomputed position within the model's validity.
    ///
    /// - Parameters:
    ///   - position: A validated position; build it once per location fix.
    ///   - decimalYear: The date as a decimal year.
    /// - Throws: ``GeoMagnetismError/outsideValidity`` or ``GeoMagnetismError/invalidDate``.
    public func field(at position: GeodeticPosition, decimalYear: Double) throws(GeoMagnetismError) -> MagneticField {
        try checkDate(decimalYear, allowOutsideValidity: false)
        return extrapolatedField(at: position, decimalYear: decimalYear)
    }

    /// Computes the field at a precomputed position for any date, extrapolating linearly outside ``validity``.
    ///
    /// It never throws, for hot paths that have already validated their inputs. A NaN date gives NaN elements.
    ///
    /// - Parameters:
    ///   - position: A validated position.
    ///   - decimalYear: The date as a decimal year.
    public func extrapolatedField(at position: GeodeticPosition, decimalYear: Double) -> MagneticField {
        let result = synthesize(at: position, yearsSinceEpoch: decimalYear - epoch)
        return result.field.magneticField(at: position)
    }

    /// Computes the yearly rates of change of the field elements at a place and time within ``validity``.
    ///
    /// - Parameters:
    ///   - position: A validated position.
    ///   - decimalYear: The date as a decimal year.
    /// - Throws: ``GeoMagnetismError/outsideValidity`` or ``GeoMagnetismError/invalidDate``.
    public func yearlyChange(
        at position: GeodeticPosition,
        decimalYear: Double
    ) throws(GeoMagnetismError) -> MagneticFieldChange {
        try checkDate(decimalYear, allowOutsideValidity: false)
        let result = synthesize(at: position, yearsSinceEpoch: decimalYear - epoch)
        return result.rate.change(of: result.field.magneticField(at: position))
    }

    /// Precomputes the field and its secular variation at one position, for cheap evaluation at many dates.
    ///
    /// The model is linear in time, so after this one synthesis every ``LocalMagneticModel/field(decimalYear:)``
    /// costs a few multiplications: the right tool for a compass service that sees the same location for
    /// thousands of sensor samples.
    ///
    /// - Parameter position: A validated position.
    public func localModel(at position: GeodeticPosition) -> LocalMagneticModel {
        let result = synthesize(at: position, yearsSinceEpoch: 0)
        return LocalMagneticModel(
            position: position, epoch: epoch, validity: validity,
            fieldAtEpoch: result.field, yearlyRate: result.rate)
    }

    func checkDate(_ decimalYear: Double, allowOutsideValidity: Bool) throws(GeoMagnetismError) {
        guard decimalYear.isFinite else {
            throw GeoMagnetismError.invalidDate.with("decimal year \(decimalYear) is not a finite number")
        }
        guard allowOutsideValidity || validity.contains(decimalYear) else {
            throw GeoMagnetismError.outsideValidity.with(
                "decimal year \(decimalYear) is outside \(modelName)'s validity \(validity.lowerBound)...\(validity.upperBound)"
            )
        }
    }
}
