public import Foundation

/// Where the simulator gets the Earth's magnetic field: the World Magnetic Model in production
/// (`WorldMagneticModel+GeomagneticFieldSource.swift`), a constant in tests.
public protocol GeomagneticFieldSource: Sendable {
    /// The geomagnetic field at a place and time, in the world frame (north, east, down), in µT.
    ///
    /// Named `geomagneticField`, not `field`, so it never competes with GeoMagnetism's own
    /// `WorldMagneticModel.field(latitude:longitude:altitude:date:)`, which returns the model's `MagneticField` in nT.
    ///
    /// - Parameters:
    ///   - latitude: WGS84 degrees.
    ///   - longitude: WGS84 degrees.
    ///   - altitude: metres above the WGS84 ellipsoid.
    ///   - date: the moment.
    func geomagneticField(
        latitude: Double, longitude: Double, altitude: Double, date: Date
    ) throws -> (north: Double, east: Double, down: Double)
}

/// A field that is the same everywhere and always: a test double, and a way to simulate without a model.
public struct ConstantGeomagneticField: GeomagneticFieldSource, Hashable {
    /// µT towards true north.
    public var north: Double
    /// µT towards east.
    public var east: Double
    /// µT downwards.
    public var down: Double

    public init(north: Double, east: Double, down: Double) {
        self.north = north
        self.east = east
        self.down = down
    }

    /// Munich's field, about (20.9, 1.6, 44.0) µT: declination about +4.4°, inclination about 64°.
    public static let munich = ConstantGeomagneticField(north: 20.9, east: 1.6, down: 44.0)

    public func geomagneticField(
        latitude: Double, longitude: Double, altitude: Double, date: Date
    ) -> (north: Double, east: Double, down: Double) {
        (north, east, down)
    }
}
