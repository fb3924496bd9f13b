/// The World Magnetic Model evaluated once at one position, ready to give the field at any date in O(1).
///
/// The model's coefficients change linearly with time, so at a fixed position the field vector is
/// B(t) = B(epoch) + (t − epoch)·Ḃ. A compass service makes one with ``WorldMagneticModel/localModel(at:)``
/// when a new location fix arrives and then asks it for the declination at every sensor sample, without
/// repeating the spherical-harmonic synthesis. Results agree with ``WorldMagneticModel/field(at:decimalYear:)``
/// to rounding error (far below 1e-6 nT).
public struct LocalMagneticModel: Sendable, Equatable {
    /// The position this model was evaluated at.
    public let position: GeodeticPosition
    /// The span of decimal years the underlying model is valid for.
    public let validity: ClosedRange<Double>

    let epoch: Double
    let fieldAtEpoch: FieldVector
    let yearlyRate: FieldVector

    init(
        position: GeodeticPosition, epoch: Double, validity: ClosedRange<Double>,
        fieldAtEpoch: FieldVector, yearlyRate: FieldVector
    ) {
        self.position = position
        self.epoch = epoch
        self.validity = validity
        self.fieldAtEpoch = fieldAtEpoch
        self.yearlyRate = yearlyRate
    }

    /// The field at ``position`` at a date within ``validity``.
    ///
    /// - Parameter decimalYear: The date as a decimal year.
    /// - Throws: ``GeoMagnetismError/outsideValidity`` or ``GeoMagnetismError/invalidDate``.
    public func field(decimalYear: Double) throws(GeoMagnetismError) -> MagneticField {
        try checkDate(decimalYear)
        return extrapolatedField(decimalYear: decimalYear)
    }

    /// The field at ``position`` at any date, extrapolating linearly outside ``validity``; never throws.
    ///
    /// - Parameter decimalYear: The date as a decimal year; NaN gives NaN elements.
    public func extrapolatedField(decimalYear: Double) -> MagneticField {
        vector(at: decimalYear).magneticField(at: position)
    }

    /// The yearly rates of change of the field elements at ``position`` at a date within ``validity``.
    ///
    /// - Parameter decimalYear: The date as a decimal year.
    /// - Throws: ``GeoMagnetismError/outsideValidity`` or ``GeoMagnetismError/invalidDate``.
    public func yearlyChange(decimalYear: Double) throws(GeoMagnetismError) -> MagneticFieldChange {
        try checkDate(decimalYear)
        return yearlyRate.change(of: extrapolatedField(decimalYear: decimalYear))
    }

    private func vector(at decimalYear: Double) -> FieldVector {
        let dt = decimalYear - epoch
        return FieldVector(
            north: fieldAtEpoch.north + dt * yearlyRate.north,
            east: fieldAtEpoch.east + dt * yearlyRate.east,
            down: fieldAtEpoch.down + dt * yearlyRate.down)
    }

    private func checkDate(_ decimalYear: Double) throws(GeoMagnetismError) {
        guard decimalYear.isFinite else {
            throw GeoMagnetismError.invalidDate.with("decimal year \(decimalYear) is not a finite number")
        }
        guard validity.contains(decimalYear) else {
            throw GeoMagnetismError.outsideValidity.with(
                "decimal year \(decimalYear) is outside the model's validity \(validity.lowerBound)...\(validity.upperBound)"
            )
        }
    }
}
