/// A three-axis reading in the device frame (x right of the screen, y towards the top of the device,
/// z out of the screen), the frame used by Android and by the StepCompass contract.
public struct Vector3: Sendable, Hashable, Codable {
    /// The x component.
    public var x: Double
    /// The y component.
    public var y: Double
    /// The z component.
    public var z: Double

    /// Creates a vector from its three components.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Standard gravity, m/s² (the value Sensor Logger documents for its conversions).
    public static let standardGravity = 9.80665

    /// The components as `[x, y, z]`, the shape the contract publishes.
    public var array: [Double] { [x, y, z] }

    /// The components as a `SIMD3`, what the step detector and the contract's payloads take.
    public var simd: SIMD3<Double> { SIMD3(x, y, z) }

    /// The Euclidean length.
    public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }

    /// Whether all three components are finite.
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// Component-wise sum.
    public static func + (lhs: Vector3, rhs: Vector3) -> Vector3 {
        Vector3(x: lhs.x + rhs.x, y: lhs.y + rhs.y, z: lhs.z + rhs.z)
    }

    /// Scales every component.
    public static func * (lhs: Vector3, rhs: Double) -> Vector3 {
        Vector3(x: lhs.x * rhs, y: lhs.y * rhs, z: lhs.z * rhs)
    }

    /// Encodes as the contract's `[x, y, z]` array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(x)
        try container.encode(y)
        try container.encode(z)
    }

    /// Decodes the contract's `[x, y, z]` array.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        x = try container.decode(Double.self)
        y = try container.decode(Double.self)
        z = try container.decode(Double.self)
    }
}
