/// One neighbour in a nearest-markers answer.
public struct NearestResult: Sendable, Hashable {
    /// The neighbouring marker.
    public var marker: Marker
    /// The Haversine distance in miles, unrounded: the value results are ordered by.
    public var distanceMiles: Double
    /// ``distanceMiles`` rounded to two decimals, the value the contract publishes.
    public var roundedMiles: Double

    public init(marker: Marker, distanceMiles: Double) {
        self.marker = marker
        self.distanceMiles = distanceMiles
        self.roundedMiles = Haversine.roundedMiles(distanceMiles)
    }
}
