import GeoMagnetism
import Testing

/// Longitude conventions, the poles, the reliability zones and the cached local model.
@Suite("Field geometry and reliability")
struct FieldGeometryTests {
    let model: WorldMagneticModel

    init() throws {
        model = try WorldMagneticModel.wmm2025()
    }

    @Test("Longitude 240 is the same place as -120, and 360 as 0")
    func longitudeWrap() throws {
        for (east, west) in [(240.0, -120.0), (360.0, 0.0), (180.0, 180.0), (359.5, -0.5)] {
            let a = try model.field(latitude: -80, longitude: east, altitude: 0, decimalYear: 2025)
            let b = try model.field(latitude: -80, longitude: west, altitude: 0, decimalYear: 2025)
            #expect(a == b)
        }
        #expect(try GeodeticPosition(latitude: 0, longitude: 240).longitude == -120)
    }

    @Test("Official row 2025.0, 80° S, 240° E: D 68.78°, GV -51.22°")
    func gridVariationWraps() throws {
        let field = try model.field(latitude: -80, longitude: 240, altitude: 0, decimalYear: 2025)
        #expect(abs(field.declination - 68.78) <= 0.005)
        #expect(abs(try #require(field.gridVariation) + 51.22) <= 0.005)
        #expect(try model.field(latitude: 54.9, longitude: 0, altitude: 0, decimalYear: 2025).gridVariation == nil)
        #expect(try model.field(latitude: 55, longitude: 0, altitude: 0, decimalYear: 2025).gridVariation != nil)
    }

    @Test("The field is finite and continuous at the geographic poles")
    func poles() throws {
        for latitude in [90.0, -90.0] {
            let atPole = try model.field(latitude: latitude, longitude: 30, altitude: 0, decimalYear: 2026)
            let near = try model.field(latitude: latitude * (1 - 1e-9), longitude: 30, altitude: 0, decimalYear: 2026)
            #expect(abs(atPole.north - near.north) < 1e-2)
            #expect(abs(atPole.east - near.east) < 1e-2)
            #expect(abs(atPole.down - near.down) < 1e-2)
            #expect(abs(atPole.declination - near.declination) < 1e-4)
        }
    }

    @Test("Reliability zones follow the horizontal intensity")
    func reliabilityThresholds() {
        #expect(FieldReliability(horizontalIntensity: 25_000) == .normal)
        #expect(FieldReliability(horizontalIntensity: 6_000) == .normal)
        #expect(FieldReliability(horizontalIntensity: 5_999.9) == .caution)
        #expect(FieldReliability(horizontalIntensity: 2_000) == .caution)
        #expect(FieldReliability(horizontalIntensity: 1_999.9) == .blackout)
        #expect(FieldReliability(horizontalIntensity: .nan) == .blackout)
    }

    @Test("Near the north magnetic pole a compass is blacked out, further away only cautioned")
    func reliabilityNearPole() throws {
        // Official rows of the 100-point set: H = 1504 nT, 907 nT (blackout) and 2164 nT (caution).
        #expect(
            try model.field(latitude: 89, longitude: -121, altitude: 28_000, decimalYear: 2025).reliability
                == .blackout)
        #expect(
            try model.field(latitude: 87, longitude: -154, altitude: 50_000, decimalYear: 2029).reliability
                == .blackout)
        #expect(
            try model.field(latitude: 80, longitude: -96, altitude: 48_000, decimalYear: 2025).reliability
                == .caution)
        // At sea level close to the 2026 dip pole (about 85.5° N, 135° E) H is a few hundred nT at most.
        let nearDipPole = try model.field(latitude: 85.5, longitude: 138, altitude: 0, decimalYear: 2026)
        #expect(nearDipPole.horizontalIntensity < 2_000)
        #expect(nearDipPole.reliability == .blackout)
        #expect(nearDipPole.inclination > 89)
        #expect(
            try model.field(latitude: 48.1, longitude: 11.6, altitude: 0, decimalYear: 2026).reliability
                == .normal)
    }

    @Test("The local model matches full synthesis at every date")
    func localModel() throws {
        let position = try GeodeticPosition(latitude: 48.137, longitude: 11.575, altitude: 519)
        let local = model.localModel(at: position)
        #expect(local.position == position)
        #expect(local.validity == model.validity)
        for year in stride(from: 2025.0, through: 2030.0, by: 0.25) {
            let direct = try model.field(at: position, decimalYear: year)
            let cached = try local.field(decimalYear: year)
            #expect(abs(direct.north - cached.north) < 1e-6)
            #expect(abs(direct.east - cached.east) < 1e-6)
            #expect(abs(direct.down - cached.down) < 1e-6)
            #expect(abs(direct.declination - cached.declination) < 1e-9)
            let change = try local.yearlyChange(decimalYear: year)
            let directChange = try model.yearlyChange(at: position, decimalYear: year)
            #expect(abs(change.declination - directChange.declination) < 1e-9)
        }
    }

    @Test("A field built from components derives the same elements")
    func fieldFromComponents() throws {
        let field = try model.field(latitude: -80, longitude: 240, altitude: 0, decimalYear: 2027.5)
        let rebuilt = MagneticField(
            north: field.north, east: field.east, down: field.down,
            latitude: -80, longitude: -120)
        #expect(rebuilt == field)
        let east = MagneticField(north: 0, east: 20_000, down: 20_000, latitude: 0, longitude: 0)
        #expect(east.declination == 90)
        #expect(abs(east.inclination - 45) < 1e-12)
        #expect(east.gridVariation == nil)
    }
}
