/// A point in the walk's local frame: metres north and east of the start, the frame of the contract's
/// `position` and `simulation/truth` (x north, y east).
public struct LocalPoint: Sendable, Hashable, Codable {
    /// Metres north of the start.
    public var north: Double
    /// Metres east of the start.
    public var east: Double

    public init(north: Double, east: Double) {
        self.north = north
        self.east = east
    }
}
