import GeoMagnetism
import Testing

/// The model refuses dates outside its five-year life and impossible positions, unless asked to extrapolate.
@Suite("Validity and input checks")
struct ValidityTests {
    let model: WorldMagneticModel

    init() throws {
        model = try WorldMagneticModel.wmm2025()
    }

    @Test("The ends of 2025.0...2030.0 are valid", arguments: [2025.0, 2027.5, 2030.0])
    func insideValidity(_ year: Double) throws {
        _ = try model.field(latitude: 40, longitude: -105, altitude: 1_600, decimalYear: year)
    }

    @Test("Dates outside 2025.0...2030.0 throw outsideValidity", arguments: [2024.999, 2030.001, 1990, 2100])
    func outsideValidity(_ year: Double) throws {
        let error = #expect(throws: GeoMagnetismError.outsideValidity) {
            try model.field(latitude: 40, longitude: -105, altitude: 1_600, decimalYear: year)
        }
        #expect(error?.description.contains("WMM-2025") == true)
        let position = try GeodeticPosition(latitude: 40, longitude: -105)
        #expect(throws: GeoMagnetismError.outsideValidity) { try model.field(at: position, decimalYear: year) }
        #expect(throws: GeoMagnetismError.outsideValidity) { try model.yearlyChange(at: position, decimalYear: year) }
        #expect(throws: GeoMagnetismError.outsideValidity) {
            try model.localModel(at: position).field(decimalYear: year)
        }
    }

    @Test("Extrapolation outside the validity continues the linear secular variation")
    func extrapolation() throws {
        let position = try GeodeticPosition(latitude: 40, longitude: -105, altitude: 1_600)
        let end = try model.field(at: position, decimalYear: 2030.0)
        let change = try model.yearlyChange(at: position, decimalYear: 2030.0)
        let later = try model.field(
            latitude: 40, longitude: -105, altitude: 1_600, decimalYear: 2031.0,
            allowOutsideValidity: true)
        #expect(abs(later.north - (end.north + change.north)) < 1e-6)
        #expect(abs(later.east - (end.east + change.east)) < 1e-6)
        #expect(abs(later.down - (end.down + change.down)) < 1e-6)
        #expect(model.extrapolatedField(at: position, decimalYear: 2031.0) == later)
        #expect(
            abs(
                model.localModel(at: position).extrapolatedField(decimalYear: 2031.0).declination
                    - later.declination) < 1e-9)
    }

    @Test("Invalid dates throw invalidDate even when extrapolating", arguments: [Double.nan, .infinity, -.infinity])
    func invalidDate(_ year: Double) throws {
        #expect(throws: GeoMagnetismError.invalidDate) {
            try model.field(latitude: 0, longitude: 0, altitude: 0, decimalYear: year, allowOutsideValidity: true)
        }
    }

    @Test("Latitudes outside -90...90 or NaN throw invalidLatitude", arguments: [90.0001, -90.0001, 180, .nan])
    func invalidLatitude(_ latitude: Double) {
        #expect(throws: GeoMagnetismError.invalidLatitude) {
            try model.field(latitude: latitude, longitude: 0, altitude: 0, decimalYear: 2026)
        }
    }

    @Test("Longitudes outside -180...360 or NaN throw invalidLongitude", arguments: [-180.0001, 360.0001, 720, .nan])
    func invalidLongitude(_ longitude: Double) {
        #expect(throws: GeoMagnetismError.invalidLongitude) {
            try model.field(latitude: 0, longitude: longitude, altitude: 0, decimalYear: 2026)
        }
    }

    @Test(
        "Altitudes outside -1 km...850 km or not finite throw invalidAltitude",
        arguments: [-1_000.001, 850_000.001, .nan, .infinity])
    func invalidAltitude(_ altitude: Double) {
        #expect(throws: GeoMagnetismError.invalidAltitude) {
            try model.field(latitude: 0, longitude: 0, altitude: altitude, decimalYear: 2026)
        }
    }

    @Test("The limits of every range are accepted")
    func rangeLimits() throws {
        for (lat, lon, alt) in [(90.0, 360.0, 850_000.0), (-90.0, -180.0, -1_000.0), (0.0, 180.0, 0.0)] {
            let field = try model.field(latitude: lat, longitude: lon, altitude: alt, decimalYear: 2026)
            #expect(field.totalIntensity.isFinite && field.declination.isFinite)
        }
    }

    @Test("Errors match by kind, not by message")
    func errorEquality() {
        #expect(GeoMagnetismError.outsideValidity == GeoMagnetismError.outsideValidity)
        #expect(GeoMagnetismError.outsideValidity != GeoMagnetismError.invalidDate)
        #expect(Set([GeoMagnetismError.invalidLatitude, .invalidLatitude, .invalidLongitude]).count == 2)
    }
}
