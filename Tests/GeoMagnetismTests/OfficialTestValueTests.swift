import Foundation
import GeoMagnetism
import Testing

/// Every row of NOAA's official WMM2025 test values, compared to within half a unit of their printed rounding.
///
/// Provenance of the raw files in `Resources/` (the index of public repositories this was built from did not
/// hold the `tests/` copies in `CIRES-Geomagnetism/wmm`, so these are the copies it did hold):
/// - `WMM2025_TEST_VALUES.txt`: `Mayitzin/ahrs` `ahrs/utils/WMM2025/WMM2025_TEST_VALUES.txt` (commit 8d572344),
///   the WMM2025 report's 12-point table, in the same whitespace format NOAA's `tests/Test_wmm.py` reads from
///   `tests/WMM2025_TEST_VALUE_TABLE_FOR_REPORT.txt`.
/// - `WMM2025_FINAL_TEST_VALUES.txt`: `CIRES-Geomagnetism/wmm` `wmm/WMM2025_FINAL_TEST_VALUES.txt`
///   (commit d5e0a4e8), the 100-point set with H, X, Y, Z, F to 1 nT.
/// - `WMM2020.COF`: `CIRES-Geomagnetism/wmm` `wmm/coefs/WMM2020.cof` (commit ec07026a), and
///   `WMM2020testvalues.txt`: `boxpet/pygeomag` `test/test_values/WMM2020testvalues.txt` (commit ed3f36d7), its
///   transcription of NOAA's WMM2020testvalues.pdf (last row's GV -51.45 as the legacy C program prints it, where
///   the PDF says -51.47) plus three pole rows computed by pygeomag, which check only the field there.
@Suite("Official WMM2025 test values")
struct OfficialTestValueTests {
    static let model = Result { try WorldMagneticModel.wmm2025() }

    @Test("Report table has its 12 rows and the 100-point set its 100")
    func rowCounts() throws {
        #expect(try OfficialTestTable.report.rows().count == 12)
        #expect(try OfficialTestTable.final.rows().count == 100)
    }

    @Test("12-point report table", arguments: try OfficialTestTable.report.rows())
    func reportRow(_ row: OfficialTestRow) throws {
        try check(row, against: .report)
    }

    @Test("100-point test set", arguments: try OfficialTestTable.final.rows())
    func finalRow(_ row: OfficialTestRow) throws {
        try check(row, against: .final)
    }

    @Test("WMM2020 parsed from its coefficient file: metadata")
    func wmm2020Metadata() throws {
        let model = try Self.wmm2020.get()
        #expect(model.epoch == 2020.0)
        #expect(model.modelName == "WMM-2020")
        #expect(model.releaseDate == "11/17/2019")
        #expect(model.validity == 2020.0...2025.0)
        #expect(try OfficialTestTable.wmm2020.rows().count == 15)
    }

    @Test(
        "WMM2020 test values (another model through init(coefficientFile:))",
        arguments: try OfficialTestTable.wmm2020.rows())
    func wmm2020Row(_ row: OfficialTestRow) throws {
        try check(row, against: .wmm2020, model: Self.wmm2020.get())
    }

    /// WMM2020 from `CIRES-Geomagnetism/wmm` `wmm/coefs/WMM2020.cof` (commit ec07026a), shipped raw.
    static let wmm2020 = Result { () throws -> WorldMagneticModel in
        guard let url = Bundle.module.url(forResource: "WMM2020", withExtension: "COF") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try WorldMagneticModel(coefficientFile: String(contentsOf: url, encoding: .utf8))
    }

    private func check(_ row: OfficialTestRow, against table: OfficialTestTable) throws {
        try check(row, against: table, model: Self.model.get())
    }

    private func check(_ row: OfficialTestRow, against table: OfficialTestTable, model: WorldMagneticModel) throws {
        let position = try GeodeticPosition(
            latitude: row.latitude, longitude: row.longitude,
            altitude: row.heightKm * 1000)
        let field = try model.field(at: position, decimalYear: row.decimalYear)
        let change = try model.yearlyChange(at: position, decimalYear: row.decimalYear)

        let nT = table.intensityTolerance
        #expect(abs(field.north - row.north) <= nT, "X \(field.north) vs \(row.north)")
        #expect(abs(field.east - row.east) <= nT, "Y \(field.east) vs \(row.east)")
        #expect(abs(field.down - row.down) <= nT, "Z \(field.down) vs \(row.down)")
        #expect(
            abs(field.horizontalIntensity - row.horizontalIntensity) <= table.horizontalIntensityTolerance,
            "H \(field.horizontalIntensity) vs \(row.horizontalIntensity)")
        #expect(abs(field.totalIntensity - row.totalIntensity) <= nT, "F \(field.totalIntensity)")

        let deg = table.angleTolerance
        #expect(abs(field.declination - row.declination) <= deg, "D \(field.declination) vs \(row.declination)")
        #expect(abs(field.inclination - row.inclination) <= deg, "I \(field.inclination) vs \(row.inclination)")
        if let expected = row.gridVariation {
            if let expected {
                let gv = try #require(field.gridVariation)
                #expect(abs(gv - expected) <= deg, "GV \(gv) vs \(expected)")
            } else {
                #expect(field.gridVariation == nil)
            }
        }

        guard row.hasRates else { return }
        let rate = table.rateTolerance
        #expect(abs(change.north - row.northRate) <= rate, "Xdot \(change.north) vs \(row.northRate)")
        #expect(abs(change.east - row.eastRate) <= rate, "Ydot \(change.east) vs \(row.eastRate)")
        #expect(abs(change.down - row.downRate) <= rate, "Zdot \(change.down) vs \(row.downRate)")
        #expect(abs(change.horizontalIntensity - row.horizontalRate) <= rate, "Hdot \(change.horizontalIntensity)")
        #expect(abs(change.totalIntensity - row.totalRate) <= rate, "Fdot \(change.totalIntensity)")
        let degPerYear = table.angleRateTolerance
        #expect(abs(change.declination - row.declinationRate) <= degPerYear, "Ddot \(change.declination)")
        #expect(abs(change.inclination - row.inclinationRate) <= degPerYear, "Idot \(change.inclination)")
    }
}
