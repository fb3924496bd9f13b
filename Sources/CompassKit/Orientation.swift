import Foundation

/// The attitude of a device and the magnetic field it sees, from one accelerometer and
/// magnetometer reading (see ``TiltCompensation``).
///
/// Angles follow the bus contract: `heading` is the magnetic compass heading of the device's top
/// (+y) projected on the horizontal plane, `pitch` is positive when the top edge is raised and
/// `roll` positive when the right edge is lowered.
public struct Orientation: Sendable, Hashable {
    /// The magnetic heading in degrees, [0, 360).
    public var heading: Double
    /// The east component of the unit horizontal heading direction (sine of ``heading``).
    ///
    /// Smoothing works on this vector rather than on the angle, so there is no wrap at north.
    public var headingEast: Double
    /// The north component of the unit horizontal heading direction (cosine of ``heading``).
    public var headingNorth: Double
    /// Pitch in degrees, [-90, 90], positive when the top edge is raised.
    public var pitch: Double
    /// Roll in degrees, (-180, 180], positive when the right edge is lowered; ±180 is face down.
    public var roll: Double
    /// The magnetic dip (inclination) in degrees, positive when the field points below the
    /// horizon (northern hemisphere), comparable with the WMM's I.
    public var inclination: Double
    /// The magnitude of the magnetic field in µT.
    public var fieldStrength: Double
    /// The magnitude of the field's horizontal component in µT; heading precision scales with it.
    public var horizontalFieldStrength: Double
    /// How ill-conditioned the heading is, in 0...1: `1 − |d|`, where `d` is the horizontal
    /// heading direction before normalisation (the horizontal projection of +y, blended with the
    /// screen normal near vertical).
    ///
    /// 0 when the device is flat or upright (the projected axis has full length), rising where the
    /// projection shrinks and small tilt errors swing the heading (about 0.5 at 60° pitch).
    public var tiltUncertainty: Double

    /// Creates an orientation; normally produced by ``TiltCompensation/orientation(gravity:magneticField:)``.
    /// - Parameters:
    ///   - heading: Magnetic heading in degrees.
    ///   - pitch: Pitch in degrees.
    ///   - roll: Roll in degrees.
    ///   - inclination: Dip in degrees.
    ///   - fieldStrength: Field magnitude in µT.
    ///   - horizontalFieldStrength: Horizontal field magnitude in µT.
    ///   - tiltUncertainty: See ``tiltUncertainty``.
    public init(
        heading: Double, pitch: Double, roll: Double, inclination: Double, fieldStrength: Double,
        horizontalFieldStrength: Double, tiltUncertainty: Double
    ) {
        self.heading = Angle.normalized(heading)
        self.headingEast = sin(Angle.radians(heading))
        self.headingNorth = cos(Angle.radians(heading))
        self.pitch = pitch
        self.roll = roll
        self.inclination = inclination
        self.fieldStrength = fieldStrength
        self.horizontalFieldStrength = horizontalFieldStrength
        self.tiltUncertainty = tiltUncertainty
    }

    init(
        east: Double, north: Double, pitch: Double, roll: Double, inclination: Double, fieldStrength: Double,
        horizontalFieldStrength: Double, tiltUncertainty: Double
    ) {
        self.heading = Angle.normalized(Angle.degrees(atan2(east, north)))
        self.headingEast = east
        self.headingNorth = north
        self.pitch = pitch
        self.roll = roll
        self.inclination = inclination
        self.fieldStrength = fieldStrength
        self.horizontalFieldStrength = horizontalFieldStrength
        self.tiltUncertainty = tiltUncertainty
    }
}
