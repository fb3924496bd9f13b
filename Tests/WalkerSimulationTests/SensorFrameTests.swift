import Foundation
import Testing
import WalkerSimulation

/// Checks the frames end to end: a tilt-compensated compass fed with the simulator's own accelerometer and
/// magnetometer must find the truth heading.
@Suite("Sensor frames")
struct SensorFrameTests {
    let field = ConstantGeomagneticField.munich

    /// Pairs each IMU sample with the truth at the same tick, keeping only samples taken while the walker is not
    /// turning (a turn's centripetal acceleration tilts the apparent vertical, as it would on a real phone).
    private func steadySamples(_ events: [SimulationEvent]) -> [(IMUSample, TruthSample)] {
        let truths = events.truthSamples
        var byTime: [Double: TruthSample] = [:]
        for truth in truths { byTime[truth.t] = truth }
        var previousHeading: Double?
        var pairs: [(IMUSample, TruthSample)] = []
        for sample in events.imuSamples {
            guard let truth = byTime[sample.t] else { continue }
            defer { previousHeading = truth.heading }
            guard let previous = previousHeading, abs(ReferenceCompass.angleDifference(truth.heading, previous)) < 0.01 else { continue }
            pairs.append((sample, truth))
        }
        return pairs
    }

    @Test(
        "Tilt-compensated heading from the simulated sensors equals the truth heading (no noise, no distortion)",
        arguments: [0.0, 45, 137, 222.5, 300, 359.5])
    func straightHeadings(heading: Double) throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.route = .straight(heading: heading)
        configuration.truthRate = 50
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let pairs = steadySamples(walker.advance(to: 20))
        #expect(pairs.count > 900)
        for (sample, truth) in pairs {
            let magnetic = ReferenceCompass.magneticHeading(accel: sample.accel, mag: sample.mag)
            let trueHeading = ReferenceCompass.compass(magnetic + declination(of: field))
            #expect(abs(ReferenceCompass.angleDifference(trueHeading, truth.heading)) < 0.5, "t = \(sample.t)")
        }
    }

    @Test(
        "Tilt-compensated heading matches the truth around the whole park loop, with and without hand sway",
        arguments: [0.0, 2.0])
    func loopHeadings(handSway: Double) throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.handSway = handSway
        configuration.truthRate = 50
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let pairs = steadySamples(walker.advance(to: 420))
        let headings = Set(pairs.map { Int($0.1.heading / 45) })
        #expect(headings.count >= 5, "the loop covers most of the compass rose")
        var worst = 0.0
        for (sample, truth) in pairs {
            let magnetic = ReferenceCompass.magneticHeading(accel: sample.accel, mag: sample.mag)
            let trueHeading = ReferenceCompass.compass(magnetic + declination(of: field))
            worst = max(worst, abs(ReferenceCompass.angleDifference(trueHeading, truth.heading)))
        }
        print("loop heading check, hand sway \(handSway)°: \(pairs.count) samples, worst error \(worst)°")
        #expect(worst < 0.5, "worst heading error \(worst)°")
    }

    @Test("The contract's correction with the simulator's hard and soft iron recovers the heading")
    func distortionIsInvertible() throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.hardIronMagnitude = 25
        configuration.softIronDistortion = 0.08
        configuration.route = .straight(heading: 111)
        configuration.truthRate = 50
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let pairs = steadySamples(walker.advance(to: 20))
        var worstRaw = 0.0
        for (sample, truth) in pairs {
            let corrected = ReferenceCompass.corrected(sample.mag, hardIron: walker.hardIron, softIron: walker.softIron)
            let heading = ReferenceCompass.compass(ReferenceCompass.magneticHeading(accel: sample.accel, mag: corrected) + declination(of: field))
            #expect(abs(ReferenceCompass.angleDifference(heading, truth.heading)) < 0.5)
            let raw = ReferenceCompass.compass(ReferenceCompass.magneticHeading(accel: sample.accel, mag: sample.mag) + declination(of: field))
            worstRaw = max(worstRaw, abs(ReferenceCompass.angleDifference(raw, truth.heading)))
        }
        #expect(worstRaw > 5, "uncorrected, the distortion is visible (\(worstRaw)°)")
    }

    @Test("Pitch and roll follow the contract's signs: top edge raised and right edge lowered are positive")
    func pitchAndRoll() throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.pitch = 35
        configuration.roll = 3
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let sample = try #require(walker.advance(to: 1).imuSamples.last)
        let (pitch, roll) = ReferenceCompass.pitchRoll(accel: sample.accel)
        #expect(abs(pitch - 35) < 1e-6)
        #expect(abs(roll - 3) < 1e-6)
        #expect(sample.accel[1] > 0)  // the top edge is up, so gravity's reaction points partly along +y
        let g = sample.accel.map { $0 * $0 }.reduce(0, +).squareRoot()
        #expect(abs(g - 9.80665) < 1e-9)

        configuration.pitch = 0
        configuration.roll = 0
        configuration.route = .straight(heading: 0)
        var flat = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let flatSample = try #require(flat.advance(to: 0).imuSamples.first)
        #expect(abs(flatSample.accel[0]) < 1e-12 && abs(flatSample.accel[1]) < 1e-12)
        #expect(abs(flatSample.accel[2] - 9.80665) < 1e-12)
        // Flat, top to true north: the magnetometer reads (east, north, −down) of the field.
        #expect(abs(flatSample.mag[0] - field.east) < 1e-9)
        #expect(abs(flatSample.mag[1] - field.north) < 1e-9)
        #expect(abs(flatSample.mag[2] + field.down) < 1e-9)
    }

    @Test("The gyroscope sees a right turn as a negative rate about the screen normal, when held flat")
    func gyroSign() throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.pitch = 0
        configuration.roll = 0
        configuration.route = .loop([LocalPoint(north: 10, east: 0), LocalPoint(north: 10, east: 100)])
        configuration.truthRate = 50
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let events = walker.advance(to: 12)
        let truths = events.truthSamples
        let samples = events.imuSamples
        // Integrating the gyroscope's z over the run gives minus the heading change (90° to the right).
        let integrated = samples.dropFirst().map { $0.gyro[2] * 0.02 }.reduce(0, +) * 180 / .pi
        let turned = ReferenceCompass.angleDifference(try #require(truths.last).heading, try #require(truths.first).heading)
        #expect(abs(turned - 90) < 1)
        #expect(abs(integrated + turned) < 0.1, "integrated \(integrated)°, turned \(turned)°")
    }
}
