/// The eight compass points of the contract's `cardinal` field.
///
/// Each point owns a 45° sector centred on it, closed at its anticlockwise edge: N is
/// [337.5, 22.5), NE is [22.5, 67.5), and so on.
public enum Cardinal: String, Sendable, Hashable, Codable, CaseIterable {
    /// North.
    case n = "N"
    /// North-east.
    case ne = "NE"
    /// East.
    case e = "E"
    /// South-east.
    case se = "SE"
    /// South.
    case s = "S"
    /// South-west.
    case sw = "SW"
    /// West.
    case w = "W"
    /// North-west.
    case nw = "NW"

    /// The compass point whose sector holds a heading.
    /// - Parameter heading: Any finite heading in degrees; it is normalised first.
    public init(heading: Double) {
        let sector = Int(((Angle.normalized(heading) + 22.5) / 45).rounded(.down)) % 8
        self = Self.allCases[sector]
    }

    /// The heading of the point's centre, in degrees.
    public var centre: Double {
        Double(Self.allCases.firstIndex(of: self) ?? 0) * 45
    }
}
