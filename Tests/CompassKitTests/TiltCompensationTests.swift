import CompassKit
import Foundation
import Testing

@Suite struct TiltCompensationTests {
    @Test(arguments: [0.0, 90, 180, 270, 45, 359])
    func flatHeadings(heading: Double) throws {
        let r = Synthetic.reading(heading: heading, pitch: 0, roll: 0)
        let o = try #require(TiltCompensation.orientation(gravity: r.accel, magneticField: r.mag))
        #expect(abs(Angle.difference(from: heading, to: o.heading)) < 1e-9)
        #expect(abs(o.pitch) < 1e-9)
        #expect(abs(o.roll) < 1e-9)
        #expect(abs(o.inclination - 64) < 1e-9)
        #expect(abs(o.fieldStrength - 48) < 1e-9)
        #expect(o.tiltUncertainty < 1e-9)
    }

    /// Synthetic Android-axis readings of the World Magnetic Model's field near Munich, with the headings
    /// and tilts they were generated from (a published set of tilt-compensation test vectors). Columns: case, accel x y z
    /// (m/s²), mag x y z (µT), expected magnetic heading, pitch (nose up), roll (right edge down).
    /// Case 11 is face down.
    static let androidRows: [[Double]] = [
        [1, 0, 0, 9.806650, 1.568230, 21.015453, -43.995358, 355.732343, 0, 0],
        [2, 0, 0, 9.806650, -21.015453, 1.568230, -43.995358, 85.732343, 0, 0],
        [3, 0, 0, 9.806650, -1.568230, -21.015453, -43.995358, 175.732343, 0, 0],
        [4, 0, 0, 9.806650, 21.015453, -1.568230, -43.995358, 265.732343, 0, 0],
        [6, 0, 3.354072, 9.215237, -9.149599, 2.791856, -47.835034, 25.732343, 20, 0],
        [7, -3.354072, 0, 9.215237, 6.449487, 18.984031, -44.471460, 25.732343, 0, 20],
        [8, -6.005322, -4.903325, 6.005322, 20.511508, 10.088735, -43.095192, 130.732343, -30, 45],
        [9, 2.371687, 6.934349, 6.516156, 6.143951, -42.401257, -23.325637, 220.732343, 45, -20],
        [10, -0.851453, 8.492808, 4.828832, 21.614293, -31.225466, -30.618504, 310.732343, 60, 10],
        [11, -1.677036, -1.702907, -9.510943, 24.317066, 19.325298, 37.615333, 55.732343, -10, 170],
    ]

    @Test func androidReferenceVectors() throws {
        for row in Self.androidRows {
            let accel = Vector3(row[1], row[2], row[3])
            let mag = Vector3(row[4], row[5], row[6])
            let id = Int(row[0])
            let o = try #require(TiltCompensation.orientation(gravity: accel, magneticField: mag))
            #expect(abs(Angle.difference(from: row[7], to: o.heading)) < 0.5, "case \(id) heading \(o.heading)")
            #expect(abs(o.pitch - row[8]) < 0.5, "case \(id) pitch \(o.pitch)")
            #expect(abs(Angle.difference(from: row[9], to: o.roll)) < 0.5, "case \(id) roll \(o.roll)")
        }
    }

    @Test func pitchAndRollSignsFollowTheContract() throws {
        let topUp = Synthetic.reading(heading: 30, pitch: 25, roll: 0)
        let o1 = try #require(TiltCompensation.orientation(gravity: topUp.accel, magneticField: topUp.mag))
        #expect(abs(o1.pitch - 25) < 1e-9)
        #expect(topUp.accel.y > 0)

        let rightDown = Synthetic.reading(heading: 30, pitch: 0, roll: 25)
        let o2 = try #require(TiltCompensation.orientation(gravity: rightDown.accel, magneticField: rightDown.mag))
        #expect(abs(o2.roll - 25) < 1e-9)
        #expect(rightDown.accel.x < 0)
        #expect(abs(o2.heading - 30) < 1e-9)
    }

    @Test(arguments: [0.0, 77, 200, 310])
    func faceDownKeepsTheHeadingOfTheTop(heading: Double) throws {
        let r = Synthetic.reading(heading: heading, pitch: 0, roll: 180)
        #expect(r.accel.z < -9)
        let o = try #require(TiltCompensation.orientation(gravity: r.accel, magneticField: r.mag))
        #expect(abs(Angle.difference(from: heading, to: o.heading)) < 1e-9)
        #expect(abs(abs(o.roll) - 180) < 1e-9)
        #expect(o.roll > 0)
    }

    @Test(arguments: [10.0, 160, 290])
    func randomTiltsRecoverTheHeading(heading: Double) throws {
        for pitch in stride(from: -65.0, through: 65, by: 13) {
            for roll in stride(from: -170.0, through: 170, by: 34) {
                let r = Synthetic.reading(heading: heading, pitch: pitch, roll: roll)
                let o = try #require(TiltCompensation.orientation(gravity: r.accel, magneticField: r.mag))
                #expect(abs(Angle.difference(from: heading, to: o.heading)) < 1e-6)
                #expect(abs(o.pitch - pitch) < 1e-6)
                #expect(abs(Angle.difference(from: roll, to: o.roll)) < 1e-6)
            }
        }
    }

    @Test(arguments: [0.0, 3, -4])
    func nearVerticalDoesNotJump(roll: Double) throws {
        for sign in [1.0, -1.0] {
            var previous: Double?
            for step in 0...400 {
                let pitch = sign * (60 + Double(step) * 0.075)  // 60° to 90°
                let r = Synthetic.reading(heading: 40, pitch: pitch, roll: roll)
                let o = try #require(TiltCompensation.orientation(gravity: r.accel, magneticField: r.mag))
                if let previous {
                    #expect(abs(Angle.difference(from: previous, to: o.heading)) < 0.5, "pitch \(pitch)")
                }
                previous = o.heading
            }
            // Upright, the heading is that of the screen's back (top raised) or front (top lowered).
            #expect(abs(Angle.difference(from: 40 - sign * roll, to: previous ?? .nan)) < 1e-6)
        }
    }

    @Test func tiltUncertaintyGrowsWithPitch() throws {
        let flat = Synthetic.reading(heading: 10, pitch: 0, roll: 0)
        let steep = Synthetic.reading(heading: 10, pitch: 65, roll: 0)
        let o1 = try #require(TiltCompensation.orientation(gravity: flat.accel, magneticField: flat.mag))
        let o2 = try #require(TiltCompensation.orientation(gravity: steep.accel, magneticField: steep.mag))
        #expect(o1.tiltUncertainty < 0.01)
        #expect(o2.tiltUncertainty > 0.4)
    }

    @Test func degenerateInputGivesNil() {
        #expect(TiltCompensation.orientation(gravity: .zero, magneticField: Vector3(0, 20, -40)) == nil)
        #expect(TiltCompensation.orientation(gravity: Vector3(0, 0, 9.8), magneticField: .zero) == nil)
        #expect(TiltCompensation.orientation(gravity: Vector3(0, 0, 9.8), magneticField: Vector3(0, 0, -50)) == nil)
        #expect(TiltCompensation.orientation(gravity: Vector3(.nan, 0, 9.8), magneticField: Vector3(0, 20, -40)) == nil)
    }
}
