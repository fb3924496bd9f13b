import CompassKit
import Foundation
import Testing
import WalkerSimulation

@Suite("Gyroscope heading fusion")
struct GyroHeadingFilterTests {
    // MARK: The filter alone, with an injected time

    @Test("the yaw rate is minus the rotation about the vertical, in degrees per second clockwise")
    func yawRateSign() throws {
        // Flat, face up: +z is up; a positive rate about z turns the top (north) towards west.
        let rate = try #require(GyroHeadingFilter.yawRate(gyro: Vector3(0, 0, 0.5), gravity: Vector3(0, 0, 9.81)))
        #expect(abs(rate + Angle.degrees(0.5)) < 1e-12)
        // Upright (top up, +y up): the rate about y is the yaw.
        let upright = try #require(GyroHeadingFilter.yawRate(gyro: Vector3(0.1, -0.2, 0.3), gravity: Vector3(0, 9.81, 0)))
        #expect(abs(upright - Angle.degrees(0.2)) < 1e-12)
        #expect(GyroHeadingFilter.yawRate(gyro: Vector3(0, 0, 1), gravity: .zero) == nil)
    }

    @Test("the first sample takes the magnetometer; the gyro then carries the heading across north")
    func gyroCarriesHeading() {
        var filter = GyroHeadingFilter()
        #expect(filter.update(time: 10, yawRate: 0, magneticHeading: 350, magnetometerWeight: 1) == 350)
        // Turn clockwise at 20°/s for 1 s with the magnetometer ignored (weight 0): 350 + 20 = 10.
        var heading = 0.0
        for i in 1...100 {
            heading = filter.update(time: 10 + Double(i) * 0.01, yawRate: 20, magneticHeading: 180, magnetometerWeight: 0)
        }
        #expect(abs(Angle.difference(from: 10, to: heading)) < 1e-9)
    }

    @Test("the magnetometer pulls the heading with its time constant, slower as its weight falls")
    func magnetometerCorrection() {
        func after(seconds: Double, weight: Double, target: Double = 4) -> Double {
            var filter = GyroHeadingFilter()
            filter.update(time: 0, yawRate: 0, magneticHeading: 0, magnetometerWeight: 1)
            var heading = 0.0
            let steps = Int(seconds * 100)
            for i in 1...steps {
                heading = filter.update(
                    time: Double(i) * 0.01, yawRate: 0, magneticHeading: target, magnetometerWeight: weight)
            }
            return heading
        }
        // A small innovation (below the fast-correction threshold): one time constant, about 63 % of the way (the
        // bias loop adds a little).
        let full = after(seconds: 2, weight: 1)
        #expect(full > 2.4 && full < 3.2)
        let weak = after(seconds: 2, weight: 0.1)
        #expect(weak > 0.2 && weak < 0.6)
        #expect(after(seconds: 2, weight: 0) == 0)
        // A large one with a trusted magnetometer (after a figure-8, a new calibration) closes much faster.
        let large = after(seconds: 1, weight: 1, target: 40)
        #expect(large > 34)
        // ...but not while the magnetometer is distrusted.
        #expect(after(seconds: 1, weight: 0.01, target: 40) < 3)
    }

    @Test("a constant gyro bias is learned, so the heading settles on the magnetometer's")
    func biasIsLearned() {
        var filter = GyroHeadingFilter()
        filter.update(time: 0, yawRate: 0, magneticHeading: 90, magnetometerWeight: 1)
        var heading = 0.0
        // The gyro reads 0.02 rad/s counter-clockwise while the device is still.
        let reading = -Angle.degrees(0.02)
        for i in 1...20_000 {
            heading = filter.update(time: Double(i) * 0.01, yawRate: reading, magneticHeading: 90, magnetometerWeight: 1)
        }
        #expect(abs(filter.bias - 0.02) < 1e-3)
        #expect(abs(Angle.difference(from: 90, to: heading)) < 0.1)
    }

    @Test("a gap longer than maxGap restarts from the magnetometer")
    func gapRestarts() {
        var filter = GyroHeadingFilter()
        filter.update(time: 0, yawRate: 0, magneticHeading: 0, magnetometerWeight: 1)
        filter.update(time: 0.02, yawRate: 0, magneticHeading: 0, magnetometerWeight: 0)
        #expect(filter.update(time: 10, yawRate: 0, magneticHeading: 123, magnetometerWeight: 0) == 123)
    }

    @Test("the magnetometer weight falls with the field strength's and the dip's deviation")
    func weights() {
        #expect(
            GyroHeadingFilter.magnetometerWeight(
                fieldStrength: 48, expectedFieldStrength: 48, inclination: 64, expectedInclination: 64) == 1)
        #expect(
            GyroHeadingFilter.magnetometerWeight(
                fieldStrength: nil, expectedFieldStrength: 48, inclination: 50, expectedInclination: nil) == 1)
        let strength = GyroHeadingFilter.magnetometerWeight(
            fieldStrength: 48 * 1.05, expectedFieldStrength: 48, inclination: nil, expectedInclination: nil)
        #expect(abs(strength - exp(-1)) < 1e-9)
        let both = GyroHeadingFilter.magnetometerWeight(
            fieldStrength: 48 * 1.1, expectedFieldStrength: 48, inclination: 72, expectedInclination: 64)
        #expect(both < 1e-3)
    }

    // MARK: The pipeline on a simulated indoor loop

    /// Heading errors (degrees, against the phone's true heading) and the dead-reckoning error at the end of the loop
    /// (one step at a time, metres along the pipeline's heading), with and without the gyroscope.
    struct LoopResult {
        var magnetometerRMS: Double
        var fusedRMS: Double
        var magnetometerMax: Double
        var fusedMax: Double
        var magnetometerDrift: Double
        var fusedDrift: Double
        var walked: Double
    }

    static func indoorLoop(seed: UInt64, interference: Bool) throws -> LoopResult {
        var configuration = WalkerConfiguration()
        configuration.seed = seed
        configuration.figureEight = false
        // A corridor loop of 100 m: 25 m a side.
        configuration.route = .loop([
            LocalPoint(north: 25, east: 0), LocalPoint(north: 25, east: 25), LocalPoint(north: 0, east: 25),
            LocalPoint(north: 0, east: 0),
        ])
        configuration.maximumTurnRate = 90
        if interference {
            // Steel near the walls: each bends the field by 20-40° and changes its strength and dip.
            configuration.interferenceZones = [
                InterferenceZone(center: LocalPoint(north: 10, east: 0), radius: 4, disturbance: [0, 14, 4]),
                InterferenceZone(center: LocalPoint(north: 25, east: 12), radius: 4, disturbance: [-10, -6, -6]),
                InterferenceZone(center: LocalPoint(north: 15, east: 25), radius: 4, disturbance: [6, 12, 8]),
                InterferenceZone(center: LocalPoint(north: 0, east: 14), radius: 4, disturbance: [12, -10, -5]),
            ]
        }
        let field = ConstantGeomagneticField.munich
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let horizontal = (field.north * field.north + field.east * field.east).squareRoot()
        let strength = (horizontal * horizontal + field.down * field.down).squareRoot()
        let inclination = Angle.degrees(atan2(field.down, horizontal))
        let declination = Angle.degrees(atan2(field.east, field.north))
        let calibration = Calibration(
            hardIron: try #require(Vector3(walker.hardIron)), softIron: try #require(Matrix3(walker.softIron)),
            quality: 1, coverage: 1, fitResidual: 0.4, fieldStrength: strength)
        func pipeline() -> HeadingPipeline {
            var pipeline = HeadingPipeline(calibration: calibration, declination: declination)
            pipeline.expectedFieldStrength = strength
            pipeline.expectedInclination = inclination
            return pipeline
        }
        var magnetometer = pipeline()
        var fused = pipeline()
        var headings = (magnetometer: 0.0, fused: 0.0)
        var squares = (magnetometer: 0.0, fused: 0.0)
        var maxima = (magnetometer: 0.0, fused: 0.0)
        var count = 0
        var reckoned = (magnetometer: (x: 0.0, y: 0.0), fused: (x: 0.0, y: 0.0))
        var lastSteps = 0
        let rate = configuration.imuRate
        var tick = 0
        while walker.distanceWalked < 100 || tick == 0 {
            let t = Double(tick) / rate
            tick += 1
            for event in walker.advance(to: t) {
                switch event {
                case .imu(let t, let accel, let mag, let gyro):
                    let a = try #require(Vector3(accel))
                    let m = try #require(Vector3(mag))
                    let w = try #require(Vector3(gyro))
                    let plainOutput = magnetometer.process(timestamp: t, accel: a, mag: m)
                    let fusedOutput = fused.process(timestamp: t, accel: a, mag: m, gyro: w)
                    let plain = try #require(plainOutput)
                    let withGyro = try #require(fusedOutput)
                    #expect(withGyro.isGyroFused && !plain.isGyroFused)
                    headings = (plain.trueHeading ?? .nan, withGyro.trueHeading ?? .nan)
                    if t > 2 {
                        let e1 = abs(Angle.difference(from: walker.deviceHeading, to: headings.magnetometer))
                        let e2 = abs(Angle.difference(from: walker.deviceHeading, to: headings.fused))
                        squares.magnetometer += e1 * e1
                        squares.fused += e2 * e2
                        maxima = (max(maxima.magnetometer, e1), max(maxima.fused, e2))
                        count += 1
                    }
                case .steps(let steps, _):
                    // `--steps-per-update 1`: every step moves 0.75 m along the current heading.
                    for _ in lastSteps..<steps {
                        let m = Angle.radians(headings.magnetometer)
                        let f = Angle.radians(headings.fused)
                        reckoned.magnetometer.x += 0.75 * cos(m)
                        reckoned.magnetometer.y += 0.75 * sin(m)
                        reckoned.fused.x += 0.75 * cos(f)
                        reckoned.fused.y += 0.75 * sin(f)
                    }
                    lastSteps = steps
                default:
                    break
                }
            }
        }
        let truth = walker.position
        func drift(_ point: (x: Double, y: Double)) -> Double {
            ((point.x - truth.north) * (point.x - truth.north) + (point.y - truth.east) * (point.y - truth.east))
                .squareRoot()
        }
        return LoopResult(
            magnetometerRMS: (squares.magnetometer / Double(count)).squareRoot(),
            fusedRMS: (squares.fused / Double(count)).squareRoot(),
            magnetometerMax: maxima.magnetometer, fusedMax: maxima.fused,
            magnetometerDrift: drift(reckoned.magnetometer), fusedDrift: drift(reckoned.fused),
            walked: walker.distanceWalked)
    }

    static func describe(_ r: LoopResult) -> String {
        String(
            format: "heading RMS %.2f° (max %.1f°) magnetometer-only vs %.2f° (max %.1f°) fused; "
                + "dead reckoning at the end of %.1f m: %.2f %% vs %.2f %%",
            r.magnetometerRMS, r.magnetometerMax, r.fusedRMS, r.fusedMax, r.walked,
            100 * r.magnetometerDrift / r.walked, 100 * r.fusedDrift / r.walked)
    }

    @Test(
        "on an indoor loop with magnetic interference the fused heading beats the magnetometer's",
        arguments: [UInt64(1), 2, 3])
    func indoorLoopWithInterference(seed: UInt64) throws {
        let result = try Self.indoorLoop(seed: seed, interference: true)
        print("indoor loop, seed \(seed), interference: \(Self.describe(result))")
        #expect(result.fusedRMS < 0.5 * result.magnetometerRMS)
        #expect(result.fusedMax < 0.5 * result.magnetometerMax)
        #expect(result.fusedDrift / result.walked < 0.05)
        #expect(result.fusedDrift < result.magnetometerDrift)
    }

    @Test("without interference the fused heading is at least as good as the magnetometer's")
    func indoorLoopClean() throws {
        let result = try Self.indoorLoop(seed: 1, interference: false)
        print("indoor loop, seed 1, no interference: \(Self.describe(result))")
        #expect(result.fusedRMS < result.magnetometerRMS + 0.5)
        #expect(result.fusedDrift / result.walked < 0.05)
    }
}
