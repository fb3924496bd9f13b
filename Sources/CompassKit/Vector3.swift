/// A vector in three dimensions, in whatever unit its context says (µT for magnetometer readings,
/// m/s² for accelerometer readings).
///
/// A plain value with no SIMD dependency, so that the maths reads the same on every platform and
/// the optimiser can keep it in registers. It encodes as a JSON array `[x, y, z]`, the shape the
/// bus contract uses for `accel`, `mag` and `hardIron`.
public struct Vector3: Sendable, Hashable {
    /// The first component (the device's x axis: to the right of the screen).
    public var x: Double
    /// The second component (the device's y axis: towards the top of the device).
    public var y: Double
    /// The third component (the device's z axis: out of the screen).
    public var z: Double

    /// Creates a vector from its components.
    /// - Parameters:
    ///   - x: The first component.
    ///   - y: The second component.
    ///   - z: The third component.
    @inlinable
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Creates a vector from its labelled components.
    /// - Parameters:
    ///   - x: The first component.
    ///   - y: The second component.
    ///   - z: The third component.
    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.init(x, y, z)
    }

    /// Creates a vector from a three-element array, as found in a JSON payload.
    /// - Parameter array: Exactly three numbers; anything else gives `nil`.
    public init?(_ array: [Double]) {
        guard array.count == 3 else { return nil }
        self.init(array[0], array[1], array[2])
    }

    /// The vector with all components zero.
    public static let zero = Vector3(0, 0, 0)

    /// The components as `[x, y, z]`.
    public var array: [Double] { [x, y, z] }

    /// Whether every component is finite (no NaN or infinity), the first check on any bus input.
    @inlinable
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// The dot product.
    /// - Parameter other: The other vector.
    @inlinable
    public func dot(_ other: Vector3) -> Double {
        x * other.x + y * other.y + z * other.z
    }

    /// The cross product `self × other` (right-handed).
    /// - Parameter other: The right-hand operand.
    @inlinable
    public func cross(_ other: Vector3) -> Vector3 {
        Vector3(y * other.z - z * other.y, z * other.x - x * other.z, x * other.y - y * other.x)
    }

    /// The squared Euclidean length, cheaper than ``norm`` when only comparisons are needed.
    @inlinable
    public var squaredNorm: Double { dot(self) }

    /// The Euclidean length.
    @inlinable
    public var norm: Double { squaredNorm.squareRoot() }

    /// The unit vector in the same direction, or `nil` for a zero or non-finite vector, so that
    /// callers must handle the degenerate case instead of propagating NaN.
    @inlinable
    public func normalized() -> Vector3? {
        let length = norm
        guard length > 0, length.isFinite else { return nil }
        return self / length
    }

    /// Component-wise sum.
    @inlinable
    public static func + (lhs: Vector3, rhs: Vector3) -> Vector3 {
        Vector3(lhs.x + rhs.x, lhs.y + rhs.y, lhs.z + rhs.z)
    }

    /// Component-wise difference.
    @inlinable
    public static func - (lhs: Vector3, rhs: Vector3) -> Vector3 {
        Vector3(lhs.x - rhs.x, lhs.y - rhs.y, lhs.z - rhs.z)
    }

    /// The opposite vector.
    @inlinable
    public static prefix func - (vector: Vector3) -> Vector3 {
        Vector3(-vector.x, -vector.y, -vector.z)
    }

    /// Scales a vector.
    @inlinable
    public static func * (lhs: Vector3, rhs: Double) -> Vector3 {
        Vector3(lhs.x * rhs, lhs.y * rhs, lhs.z * rhs)
    }

    /// Scales a vector.
    @inlinable
    public static func * (lhs: Double, rhs: Vector3) -> Vector3 {
        rhs * lhs
    }

    /// Divides every component by a scalar.
    @inlinable
    public static func / (lhs: Vector3, rhs: Double) -> Vector3 {
        Vector3(lhs.x / rhs, lhs.y / rhs, lhs.z / rhs)
    }

    /// Adds in place.
    @inlinable
    public static func += (lhs: inout Vector3, rhs: Vector3) {
        lhs = lhs + rhs
    }

    /// Subtracts in place.
    @inlinable
    public static func -= (lhs: inout Vector3, rhs: Vector3) {
        lhs = lhs - rhs
    }
}

extension Vector3: Codable {
    /// Decodes from a JSON array `[x, y, z]`.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let x = try container.decode(Double.self)
        let y = try container.decode(Double.self)
        let z = try container.decode(Double.self)
        guard container.isAtEnd else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "a vector has exactly three components")
        }
        self.init(x, y, z)
    }

    /// Encodes as a JSON array `[x, y, z]`.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(x)
        try container.encode(y)
        try container.encode(z)
    }
}

extension Vector3: CustomStringConvertible {
    /// The vector as `[x, y, z]`.
    public var description: String { "[\(x), \(y), \(z)]" }
}
