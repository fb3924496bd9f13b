import Foundation
import GeoMagnetism
import Testing

/// Parsing of `.COF` files: both published header styles, and clear errors for damaged files.
@Suite("Coefficient file parsing")
struct CoefficientFileTests {
    /// NOAA's WMM2025 `WMM.COF` with its original three-field header, as shipped by `Mayitzin/ahrs`
    /// (`ahrs/utils/WMM2025/WMM.COF`, commit cc33b074); its coefficient lines are identical to the bundled
    /// CIRES copy, whose header adds the release year `2024.866`.
    static func noaaHeaderText() throws -> String {
        let url = try #require(Bundle.module.url(forResource: "WMM2025_ahrs", withExtension: "COF"))
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The text with its lines transformed, keeping the final newline.
    static func editing(_ text: String, _ edit: (inout [String]) -> Void) -> String {
        var lines = text.components(separatedBy: "\n")
        edit(&lines)
        return lines.joined(separator: "\n")
    }

    @Test("Bundled WMM2025 header and metadata")
    func bundledModel() throws {
        let model = try WorldMagneticModel.wmm2025()
        #expect(model.epoch == 2025.0)
        #expect(model.modelName == "WMM-2025")
        #expect(model.releaseDate == "11/13/2024")
        #expect(model.degree == 12)
        #expect(model.validity == 2025.0...2030.0)
    }

    @Test("NOAA's three-field header parses to the same model as the CIRES four-field header")
    func bothHeaderStyles() throws {
        let bundled = try WorldMagneticModel.wmm2025()
        let noaa = try WorldMagneticModel(coefficientFile: Self.noaaHeaderText())
        #expect(noaa.epoch == 2025.0)
        #expect(noaa.modelName == "WMM-2025")
        #expect(noaa.releaseDate == "11/13/2024")
        for (lat, lon) in [(80.0, 0.0), (0.0, 120.0), (-80.0, 240.0), (47.4, 8.5)] {
            let a = try bundled.field(latitude: lat, longitude: lon, altitude: 0, decimalYear: 2027.5)
            let b = try noaa.field(latitude: lat, longitude: lon, altitude: 0, decimalYear: 2027.5)
            #expect(a == b)
        }
    }

    @Test("Windows line endings and extra blank lines are accepted")
    func crlf() throws {
        let text = try Self.noaaHeaderText().replacingOccurrences(of: "\n", with: "\r\n\r\n")
        let model = try WorldMagneticModel(coefficientFile: text)
        let reference = try WorldMagneticModel(coefficientFile: Self.noaaHeaderText())
        #expect(
            try model.field(latitude: 10, longitude: 20, altitude: 0, decimalYear: 2026)
                == reference.field(latitude: 10, longitude: 20, altitude: 0, decimalYear: 2026))
    }

    @Test(
        "Bad headers are rejected",
        arguments: [
            "WMM-2025    2025.0    11/13/2024",  // fields swapped: no epoch first
            "    2025.0            WMM-2025",  // no release date
            "    2025.0   WMM-2025   2024.866   11/13/2024   extra",  // too many fields
            "    2020.0            WMM-2025        11/13/2024",  // name disagrees with epoch
            "    2025.0            2025.0          11/13/2024",  // no model name
            "    2025.0   WMM-2025   soon   11/13/2024",  // release year not a number
            "  1  0  -29351.8       0.0       12.0        0.0",  // header missing altogether
        ])
    func badHeader(_ header: String) throws {
        let text = Self.editing(try Self.noaaHeaderText()) { $0[0] = header }
        #expect(throws: GeoMagnetismError.malformedHeader) {
            try WorldMagneticModel(coefficientFile: text)
        }
    }

    @Test("A file cut short is reported as truncated")
    func truncated() throws {
        let text = try Self.noaaHeaderText()
        let half = String(text.prefix(text.count / 2))
        #expect(throws: GeoMagnetismError.truncatedFile) { try WorldMagneticModel(coefficientFile: half) }
        let withoutEndMarker = Self.editing(text) { $0.removeLast(3) }
        #expect(throws: GeoMagnetismError.truncatedFile) {
            try WorldMagneticModel(coefficientFile: withoutEndMarker)
        }
        let headerOnly = Self.editing(text) { $0.removeSubrange(1...) }
        #expect(throws: GeoMagnetismError.truncatedFile) { try WorldMagneticModel(coefficientFile: headerOnly) }
        #expect(throws: GeoMagnetismError.truncatedFile) { try WorldMagneticModel(coefficientFile: "") }
    }

    @Test("A missing term is reported even when the end marker is present")
    func missingTerm() throws {
        let text = Self.editing(try Self.noaaHeaderText()) { $0.remove(at: 40) }
        let error = #expect(throws: GeoMagnetismError.malformedCoefficients) {
            try WorldMagneticModel(coefficientFile: text)
        }
        #expect(error?.description.contains("missing") == true)
    }

    @Test("Bad coefficient lines are reported with their line number")
    func badCoefficientLines() throws {
        let original = try Self.noaaHeaderText()
        let edits: [(Int, String)] = [
            (5, "  2  2    1649.3    -815.1       -8.0"),  // too few fields
            (5, "  2  2    1649.3    -815.1       -8.0      abc"),  // not a number
            (5, "  2  3    1649.3    -815.1       -8.0      -12.1"),  // m > n
            (5, " 13  2    1649.3    -815.1       -8.0      -12.1"),  // degree above 12
            (5, "  2  1    1649.3    -815.1       -8.0      -12.1"),  // (2, 1) repeated
        ]
        for (index, line) in edits {
            let text = Self.editing(original) { $0[index] = line }
            let error = #expect(throws: GeoMagnetismError.malformedCoefficients) {
                try WorldMagneticModel(coefficientFile: text)
            }
            #expect(error?.detail.contains("line \(index + 1)") == true, "\(String(describing: error))")
        }
    }

    @Test("A lower-degree model parses and evaluates")
    func lowerDegree() throws {
        // Keep the header, the degree 1...2 terms (lines 2...6) and the end markers.
        let text = Self.editing(try Self.noaaHeaderText()) { lines in
            lines = Array(lines[0...5]) + ["9999999999", ""]
        }
        let model = try WorldMagneticModel(coefficientFile: text)
        #expect(model.degree == 2)
        let field = try model.field(latitude: 45, longitude: 10, altitude: 0, decimalYear: 2026)
        #expect(field.totalIntensity > 20_000 && field.totalIntensity < 70_000)
    }

    @Test("Errors describe themselves with kind and detail")
    func errorDescription() throws {
        let error = #expect(throws: GeoMagnetismError.self) {
            try WorldMagneticModel(coefficientFile: "   2025.0   WMM-2025\n")
        }
        #expect(error?.name == "malformedHeader")
        #expect(error?.description.hasPrefix("GeoMagnetismError.malformedHeader: line 1:") == true)
        #expect(GeoMagnetismError.outsideValidity.description == "GeoMagnetismError.outsideValidity")
    }
}
