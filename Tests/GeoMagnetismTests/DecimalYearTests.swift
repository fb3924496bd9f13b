import Foundation
import GeoMagnetism
import Testing

/// Decimal years: year + (day of year − 1 + fraction of day) / days in year, in UTC.
@Suite("Decimal year")
struct DecimalYearTests {
    /// Builds a UTC date from its parts with Foundation's calendar, as an independent check of the arithmetic.
    static func date(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0,
        _ second: Int = 0
    ) throws -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return try #require(calendar.date(from: components))
    }

    @Test("Start of a year is the whole year")
    func startOfYear() throws {
        #expect(WorldMagneticModel.decimalYear(of: try Self.date(2025, 1, 1)) == 2025.0)
        #expect(WorldMagneticModel.decimalYear(of: try Self.date(2030, 1, 1)) == 2030.0)
        #expect(WorldMagneticModel.decimalYear(of: Date(timeIntervalSince1970: 0)) == 1970.0)
    }

    @Test("Day of year counts from zero and the day's time is a fraction")
    func timeOfDay() throws {
        // 2 July 12:00 in a common year: day 183, so (182 + 0.5) / 365 = 0.5 exactly.
        #expect(WorldMagneticModel.decimalYear(of: try Self.date(2025, 7, 2, 12)) == 2025.5)
        let sixAM = WorldMagneticModel.decimalYear(of: try Self.date(2026, 3, 1, 6))
        #expect(abs(sixAM - (2026 + (59 + 0.25) / 365)) < 1e-12)
        let lastSecond = WorldMagneticModel.decimalYear(of: try Self.date(2025, 12, 31, 23, 59, 59))
        #expect(abs(lastSecond - (2025 + (364 + 86_399.0 / 86_400) / 365)) < 1e-12)
        #expect(lastSecond < 2026)
    }

    @Test("Leap years have 366 days")
    func leapYear() throws {
        let secondJanuaryNoon = WorldMagneticModel.decimalYear(of: try Self.date(2028, 1, 2, 12))
        #expect(abs(secondJanuaryNoon - (2028 + 1.5 / 366)) < 1e-12)
        let leapDay = WorldMagneticModel.decimalYear(of: try Self.date(2028, 2, 29))
        #expect(abs(leapDay - (2028 + 59.0 / 366)) < 1e-12)
        let newYearsEve = WorldMagneticModel.decimalYear(of: try Self.date(2028, 12, 31))
        #expect(abs(newYearsEve - (2028 + 365.0 / 366)) < 1e-12)
        // 2100 is not a leap year, 2000 is.
        #expect(abs(WorldMagneticModel.decimalYear(of: try Self.date(2100, 12, 31)) - (2100 + 364.0 / 365)) < 1e-12)
        #expect(abs(WorldMagneticModel.decimalYear(of: try Self.date(2000, 12, 31)) - (2000 + 365.0 / 366)) < 1e-12)
    }

    @Test("Dates before 1970 work too")
    func beforeUnixEpoch() throws {
        let date = try Self.date(1969, 12, 31, 18)
        #expect(abs(WorldMagneticModel.decimalYear(of: date) - (1969 + (364 + 0.75) / 365)) < 1e-12)
    }

    @Test("Field by date equals field by decimal year")
    func fieldByDate() throws {
        let model = try WorldMagneticModel.wmm2025()
        let date = try Self.date(2026, 11, 22, 6, 15)
        let byDate = try model.field(latitude: 48.1, longitude: 11.6, altitude: 520, date: date)
        let byYear = try model.field(
            latitude: 48.1, longitude: 11.6, altitude: 520,
            decimalYear: WorldMagneticModel.decimalYear(of: date))
        #expect(byDate == byYear)
        #expect(throws: GeoMagnetismError.outsideValidity) {
            try model.field(latitude: 48.1, longitude: 11.6, altitude: 520, date: try Self.date(2030, 1, 1, 0, 0, 1))
        }
    }
}
