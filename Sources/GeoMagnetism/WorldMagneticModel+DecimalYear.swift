public import Foundation

extension WorldMagneticModel {
    /// Converts a date to the decimal year the model's time dependence is expressed in.
    ///
    /// It is year + (day of year − 1 + fraction of the day) / days in the year, in UTC on the Gregorian
    /// calendar, the convention of NOAA's `geomaglib.util.calc_dec_year` extended with the time of day: noon on
    /// 2 January 2028 (a leap year) is 2028 + 1.5/366. Leap seconds are ignored, as in POSIX time.
    ///
    /// The arithmetic is done on the Unix time directly, so it is the same on every platform and allocates
    /// nothing (no `Calendar` or `TimeZone`).
    ///
    /// - Parameter date: Any instant.
    /// - Returns: The decimal year of that instant in UTC.
    public static func decimalYear(of date: Date) -> Double {
        let seconds = date.timeIntervalSince1970
        let dayNumber = (seconds / 86_400).rounded(.down)
        let secondOfDay = seconds - dayNumber * 86_400
        let day = Int(dayNumber)
        let year = civilYear(daysSinceEpoch: day)
        let startOfYear = daysSinceEpoch(year: year)
        let daysInYear = isLeapYear(year) ? 366.0 : 365.0
        return Double(year) + (Double(day - startOfYear) + secondOfDay / 86_400) / daysInYear
    }

    /// Computes the field at a place and date within the model's validity.
    ///
    /// A convenience for ``field(latitude:longitude:altitude:decimalYear:)`` with ``decimalYear(of:)``.
    ///
    /// - Parameters:
    ///   - latitude: Geodetic latitude in degrees, -90...90.
    ///   - longitude: Longitude in degrees, -180...360.
    ///   - altitude: Height above the WGS-84 ellipsoid in metres, -1,000...850,000.
    ///   - date: The instant of interest.
    /// - Throws: The errors of ``field(latitude:longitude:altitude:decimalYear:)``.
    public func field(
        latitude: Double,
        longitude: Double,
        altitude: Double,
        date: Date
    ) throws(GeoMagnetismError) -> MagneticField {
        try field(
            latitude: latitude, longitude: longitude, altitude: altitude,
            decimalYear: Self.decimalYear(of: date))
    }

    /// The proleptic Gregorian year containing a day counted from 1970-01-01 (Hinnant's `civil_from_days`).
    private static func civilYear(daysSinceEpoch days: Int) -> Int {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // 0 = March ... 11 = February
        return yearOfEra + era * 400 + (monthIndex >= 10 ? 1 : 0)
    }

    /// Days from 1970-01-01 to 1 January of a year (Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int) -> Int {
        let y = year - 1  // January belongs to the previous March-based year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = 306  // 1 January, counted from 1 March
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }
}
