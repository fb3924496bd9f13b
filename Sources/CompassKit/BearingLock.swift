/// A bearing the user wants to keep: how far the current heading deviates from it, and whether
/// that passes a threshold (the contract's `bearing-lock` topic).
public struct BearingLock: Sendable, Hashable, Codable {
    /// The default threshold in degrees.
    public static let defaultThreshold = 10.0

    /// The locked bearing in degrees, [0, 360), or `nil` when unlocked.
    public private(set) var bearing: Double?
    /// The threshold in degrees that ``isExceeded(heading:)`` compares with.
    public private(set) var threshold: Double

    /// Creates an unlocked lock.
    /// - Parameter threshold: The threshold in degrees.
    public init(threshold: Double = BearingLock.defaultThreshold) {
        self.threshold = threshold
    }

    /// Whether a bearing is locked.
    public var isLocked: Bool { bearing != nil }

    /// Locks a bearing.
    /// - Parameters:
    ///   - bearing: The bearing in degrees (normalised to [0, 360)); pass the current heading to
    ///     lock where the device points now.
    ///   - threshold: The threshold in degrees; `nil` keeps the current one. Its magnitude is used.
    public mutating func lock(at bearing: Double, threshold: Double? = nil) {
        self.bearing = Angle.normalized(bearing)
        if let threshold { self.threshold = abs(threshold) }
    }

    /// Unlocks.
    public mutating func unlock() {
        bearing = nil
    }

    /// The signed smallest angle from the locked bearing to a heading, in (-180, 180];
    /// positive when the heading is clockwise of the bearing. `nil` when unlocked.
    /// - Parameter heading: The current heading in degrees.
    public func deviation(heading: Double) -> Double? {
        guard let bearing else { return nil }
        return Angle.difference(from: bearing, to: heading)
    }

    /// Whether the deviation's magnitude passes the threshold (strictly); false when unlocked.
    /// - Parameter heading: The current heading in degrees.
    public func isExceeded(heading: Double) -> Bool {
        guard let deviation = deviation(heading: heading) else { return false }
        return abs(deviation) > threshold
    }
}
