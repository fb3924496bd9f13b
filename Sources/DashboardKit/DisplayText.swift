/// The words and numbers a person reads: every string the dashboard and the terminal client show is
/// made here, so both say the same thing and the formats are tested without a browser.
///
/// Formatting is done by hand rather than with `String(format:)` or a locale-dependent formatter: the
/// output is the same on every machine, and a negative number gets a typographic dash (`–4.5`) as in
/// the project's specification.
public enum DisplayText {
    /// Shown where a value is not known yet.
    public static let unknown = "—"

    /// `Steps: 123`.
    public static func steps(_ steps: Int?) -> String {
        "Steps: \(steps.map { grouped($0) } ?? unknown)"
    }

    /// `Heading: 270° W`: whole degrees (359.6 reads 0°) and the cardinal of the published heading.
    public static func heading(_ heading: Double?, cardinal: String? = nil) -> String {
        guard let heading, heading.isFinite else { return "Heading: \(unknown)" }
        return "Heading: \(wholeDegrees(heading))° \(cardinal ?? Self.cardinal(heading))"
    }

    /// The heading in whole degrees, 0...359 (0 for a value that is not finite).
    public static func wholeDegrees(_ heading: Double) -> Int {
        // Within one turn first: a message may carry any number (`1e300` would not fit an Int).
        guard heading.isFinite else { return 0 }
        let rounded = Int(heading.truncatingRemainder(dividingBy: 360).rounded())
        return ((rounded % 360) + 360) % 360
    }

    /// The contract's eight cardinals: N is [337.5, 22.5), NE [22.5, 67.5), and so on.
    public static func cardinal(_ heading: Double) -> String {
        let names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        guard heading.isFinite else { return unknown }
        var normalised = heading.truncatingRemainder(dividingBy: 360)
        if normalised < 0 { normalised += 360 }
        return names[Int((normalised + 22.5) / 45) % 8]
    }

    /// `Position: (12.3 m, –4.5 m)`: x (north) then y (east), tenths of a metre.
    public static func position(x: Double?, y: Double?) -> String {
        guard let x, let y else { return "Position: \(unknown)" }
        return "Position: (\(decimal(x, places: 1)) m, \(decimal(y, places: 1)) m)"
    }

    /// `Distance: 1,234.5 m`.
    public static func distance(_ metres: Double?) -> String? {
        metres.map { "Distance walked: \(decimal($0, places: 1)) m" }
    }

    /// `Accuracy: ±3°`.
    public static func accuracy(_ degrees: Double?) -> String? {
        guard let degrees, degrees.isFinite else { return nil }
        return "Accuracy: ±\(decimal(degrees, places: 0))°"
    }

    /// `Declination: 3.1° E` (east positive, as the World Magnetic Model gives it).
    public static func declination(_ degrees: Double?) -> String? {
        guard let degrees, degrees.isFinite else { return nil }
        let side = degrees < 0 ? "W" : "E"
        return "Declination: \(decimal(abs(degrees), places: 1))° \(side)"
    }

    /// `48.13743° N, 11.57549° E`: five decimals, about a metre.
    public static func coordinate(latitude: Double, longitude: Double) -> String {
        let ns = latitude < 0 ? "S" : "N"
        let ew = longitude < 0 ? "W" : "E"
        return "\(decimal(abs(latitude), places: 5))° \(ns), \(decimal(abs(longitude), places: 5))° \(ew)"
    }

    /// The place on openstreetmap.org, with a marker, at street zoom.
    public static func mapURL(latitude: Double, longitude: Double) -> String {
        let lat = plain(latitude, places: 6)
        let lon = plain(longitude, places: 6)
        return "https://www.openstreetmap.org/?mlat=\(lat)&mlon=\(lon)#map=17/\(lat)/\(lon)"
    }

    /// `Elevation: 519 m`.
    public static func elevationMetres(_ metres: Double) -> String {
        "Elevation: \(decimal(metres, places: 0)) m"
    }

    /// `Elevation: 1,703 ft` (international feet: 0.3048 m).
    public static func elevationFeet(_ metres: Double) -> String {
        "Elevation: \(decimal(metres / 0.3048, places: 0)) ft"
    }

    /// `1.23 mi`: the marker service's distance, always two decimals.
    public static func miles(_ miles: Double) -> String {
        "\(decimal(miles, places: 2)) mi"
    }

    /// A signed angle such as `+12°` or `–3°` (for the deviation from a locked bearing).
    public static func signedDegrees(_ degrees: Double) -> String {
        // A message may carry any number: one beyond an Int is written as `decimal` writes it.
        guard let whole = Int(exactly: degrees.rounded()) else { return "\(decimal(degrees, places: 0))°" }
        return whole > 0 ? "+\(whole)°" : "\(decimal(Double(whole), places: 0))°"
    }

    /// A bearing as `45° NE`.
    public static func bearing(_ degrees: Double) -> String {
        "\(wholeDegrees(degrees))° \(cardinal(degrees))"
    }

    /// `value` rounded to `places` decimals, thousands grouped, a typographic minus (U+2013, as the
    /// specification writes it), and never `–0.0`.
    public static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return unknown }
        let scale = power(10, places)
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return "\(value)" }
        let units = Int(scaled)
        let sign = (value < 0 && units != 0) ? "–" : ""
        let whole = units / Int(scale)
        let fraction = units % Int(scale)
        guard places > 0 else { return sign + grouped(whole) }
        let digits = String(fraction)
        return sign + grouped(whole) + "." + String(repeating: "0", count: places - digits.count) + digits
    }

    /// `1234567` as `1,234,567`.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// A plain ASCII decimal for URLs (no grouping, hyphen-minus).
    private static func plain(_ value: Double, places: Int) -> String {
        let magnitude = decimal(abs(value), places: places).filter { $0 != "," }
        return value < 0 && magnitude.contains(where: { $0 != "0" && $0 != "." }) ? "-" + magnitude : magnitude
    }

    private static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<max(0, exponent) { result *= base }
        return result
    }
}

extension DisplayText {
    /// `Today: 4,321 steps` (`1 step`), `Today: —` before the first report.
    public static func todaySteps(_ steps: Int?) -> String {
        guard let steps else { return "Today: \(unknown)" }
        return "Today: \(grouped(steps)) \(steps == 1 ? "step" : "steps")"
    }

    /// `Cadence: 104 steps/min`; nil when not walking (0 or less, or unknown).
    public static func cadence(_ stepsPerMinute: Double?) -> String? {
        guard let stepsPerMinute, stepsPerMinute.isFinite, stepsPerMinute > 0 else { return nil }
        return "Cadence: \(decimal(stepsPerMinute, places: 0)) steps/min"
    }

    /// `95–115 BPM`, `100 BPM` for a single tempo; nil for an empty or unreadable range.
    public static func tempo(_ range: [Double]) -> String? {
        let finite = range.filter(\.isFinite)
        guard let low = finite.min(), let high = finite.max() else { return nil }
        let lowText = decimal(low, places: 0)
        let highText = decimal(high, places: 0)
        return lowText == highText ? "\(lowText) BPM" : "\(lowText)–\(highText) BPM"
    }

    /// The activity band in words: `lowActive` reads `Low active`.
    public static func activityBand(_ band: String) -> String {
        switch band {
        case "sedentary": "Sedentary"
        case "lowActive": "Low active"
        case "somewhatActive": "Somewhat active"
        case "active": "Active"
        case "highlyActive": "Highly active"
        default: band
        }
    }
}
