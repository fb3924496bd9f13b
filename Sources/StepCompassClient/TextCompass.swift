import DashboardKit

/// A compass for a terminal: a tape of the eight cardinals scrolling under a fixed pointer, centred on
/// the heading, like the heading tape of an aircraft display.
///
/// ```
/// -- W ------ NW ------ N ------ NE ------ E --
///                       ▲
/// ```
public enum TextCompass {
    /// The tape and the pointer line below it.
    /// - Parameters:
    ///   - heading: The heading in degrees (any finite value; it is taken modulo 360).
    ///   - width: Columns; the pointer is in the middle one.
    ///   - degreesPerColumn: The scale.
    ///   - lockedBearing: Marked `◆` on the pointer line when it is within view.
    /// - Returns: Two lines of `width` characters, or one line saying the heading is unknown.
    public static func tape(heading: Double?, width: Int = 45, degreesPerColumn: Double = 5, lockedBearing: Double? = nil) -> [String] {
        let width = max(width, 11) | 1
        let centre = width / 2
        guard let heading, heading.isFinite else {
            return [String(repeating: "-", count: width), "(no heading)"]
        }
        var tape = Array(repeating: Character("-"), count: width)
        let names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        for (index, name) in names.enumerated() {
            guard let column = column(of: Double(index) * 45, heading: heading, centre: centre, scale: degreesPerColumn)
            else { continue }
            let start = column - name.count / 2
            for (offset, character) in name.enumerated() where (0..<width).contains(start + offset) {
                tape[start + offset] = character
            }
            for blank in [start - 1, start + name.count] where (0..<width).contains(blank) {
                tape[blank] = " "
            }
        }
        var pointer = Array(repeating: Character(" "), count: width)
        if let lockedBearing, lockedBearing.isFinite,
            let column = column(of: lockedBearing, heading: heading, centre: centre, scale: degreesPerColumn),
            (0..<width).contains(column)
        {
            pointer[column] = "◆"
        }
        pointer[centre] = "▲"
        return [String(tape), String(pointer)]
    }

    /// The column of a bearing on a tape centred on `heading`, nil when it falls outside.
    private static func column(of bearing: Double, heading: Double, centre: Int, scale: Double) -> Int? {
        var offset = (bearing - heading).truncatingRemainder(dividingBy: 360)
        if offset > 180 { offset -= 360 }
        if offset <= -180 { offset += 360 }
        let column = centre + Int((offset / scale).rounded())
        return (0...(2 * centre)).contains(column) ? column : nil
    }
}
