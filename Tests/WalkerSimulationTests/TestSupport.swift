import Foundation
import WalkerSimulation

/// An IMU sample pulled out of the event stream.
struct IMUSample {
    var t: Double
    var accel: [Double]
    var mag: [Double]
    var gyro: [Double]
}

/// A truth record pulled out of the event stream.
struct TruthSample {
    var t: Double
    var latitude: Double
    var longitude: Double
    var heading: Double
    var x: Double
    var y: Double
    var steps: Int
}

/// A location fix pulled out of the event stream.
struct LocationSample {
    var t: Double
    var latitude: Double
    var longitude: Double
    var altitude: Double
    var horizontalAccuracy: Double
    var verticalAccuracy: Double
    var speed: Double
    var course: Double
}

extension Array where Element == SimulationEvent {
    var imuSamples: [IMUSample] {
        compactMap {
            if case .imu(let t, let accel, let mag, let gyro) = $0 { IMUSample(t: t, accel: accel, mag: mag, gyro: gyro) } else { nil }
        }
    }

    var truthSamples: [TruthSample] {
        compactMap {
            if case .truth(let t, let lat, let lon, let heading, let x, let y, let steps) = $0 {
                TruthSample(t: t, latitude: lat, longitude: lon, heading: heading, x: x, y: y, steps: steps)
            } else {
                nil
            }
        }
    }

    var locationSamples: [LocationSample] {
        compactMap {
            if case .location(let t, let lat, let lon, let alt, let hAcc, let vAcc, let speed, let course) = $0 {
                LocationSample(
                    t: t, latitude: lat, longitude: lon, altitude: alt, horizontalAccuracy: hAcc,
                    verticalAccuracy: vAcc, speed: speed, course: course)
            } else {
                nil
            }
        }
    }

    var stepCounts: [(count: Int, t: Double)] {
        compactMap { if case .steps(let count, let t) = $0 { (count, t) } else { nil } }
    }
}

/// A small, independent tilt-compensated compass used as the reference: gravity from the accelerometer gives the
/// vertical, the magnetometer the magnetic north, and the heading is the direction of the device's +y axis
/// projected on the horizontal plane (the contract's definition).
enum ReferenceCompass {
    private static func cross(_ a: [Double], _ b: [Double]) -> [Double] {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    }

    private static func normalized(_ v: [Double]) -> [Double] {
        let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot()
        return v.map { $0 / length }
    }

    /// Magnetic heading of +y in degrees, [0, 360).
    static func magneticHeading(accel: [Double], mag: [Double]) -> Double {
        let down = normalized(accel.map { -$0 })  // the accelerometer reads "up" at rest
        let east = normalized(cross(down, mag))
        let north = cross(east, down)
        // The device's +y axis is (0, 1, 0): its components along north and east are the y entries.
        return compass(atan2(east[1], north[1]) * 180 / .pi)
    }

    /// Pitch (top edge raised positive) and roll (right edge lowered positive), degrees.
    static func pitchRoll(accel: [Double]) -> (pitch: Double, roll: Double) {
        let g = (accel[0] * accel[0] + accel[1] * accel[1] + accel[2] * accel[2]).squareRoot()
        return (asin(accel[1] / g) * 180 / .pi, atan2(-accel[0], accel[2]) * 180 / .pi)
    }

    /// The contract's correction: `softIron · (raw − hardIron)`.
    static func corrected(_ raw: [Double], hardIron: [Double], softIron: [[Double]]) -> [Double] {
        let v = zip(raw, hardIron).map { $0 - $1 }
        return softIron.map { row in zip(row, v).map { $0 * $1 }.reduce(0, +) }
    }

    static func compass(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        return value >= 360 ? 0 : value
    }

    static func angleDifference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 }
        if d <= -180 { d += 360 }
        return d
    }
}

/// Declination (degrees east) of a constant field.
func declination(of field: ConstantGeomagneticField) -> Double {
    atan2(field.east, field.north) * 180 / .pi
}
