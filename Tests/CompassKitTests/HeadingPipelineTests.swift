import CompassKit
import StepCompassTesting
import Testing

@Suite struct HeadingPipelineTests {
    static let calibration = Calibration(
        hardIron: Synthetic.hardIronOffset, quality: 0.9, coverage: 0.9, fitResidual: 0.3, fieldStrength: 48,
        model: .sphere)

    @Test func firstSampleSetsTheHeadingAndSmoothingFollows() throws {
        var pipeline = HeadingPipeline(calibration: Self.calibration, declination: 4)
        pipeline.expectedFieldStrength = 48
        pipeline.expectedInclination = 64
        let a = Synthetic.reading(heading: 350, pitch: 10, roll: -5)
        let firstOutput = pipeline.process(timestamp: 0, accel: a.accel, mag: a.mag + Synthetic.hardIronOffset)
        let first = try #require(firstOutput)
        #expect(abs(Angle.difference(from: 350, to: first.magneticHeading)) < 1e-6)
        #expect(abs(Angle.difference(from: 354, to: try #require(first.trueHeading))) < 1e-6)
        #expect(!first.interference)
        #expect(first.accuracy < 5)
        // Turn to 10° (across north): after one time constant the heading is part-way, not near 180.
        let b = Synthetic.reading(heading: 10, pitch: 10, roll: -5)
        var out = first
        for i in 1...25 {
            let next = pipeline.process(
                timestamp: Double(i) * 0.01, accel: b.accel, mag: b.mag + Synthetic.hardIronOffset)
            out = try #require(next)
        }
        let d = Angle.difference(from: 350, to: out.magneticHeading)
        #expect(d > 8 && d < 16)
        #expect(abs(out.pitch - 10) < 1e-6)
        #expect(abs(out.roll + 5) < 1e-6)
    }

    @Test func flagsInterference() throws {
        var pipeline = HeadingPipeline(calibration: Self.calibration)
        pipeline.expectedFieldStrength = 48
        let a = Synthetic.reading(heading: 90, pitch: 0, roll: 0)
        var out: HeadingPipeline.Output?
        for i in 0..<200 {
            out = pipeline.process(
                timestamp: Double(i) * 0.02, accel: a.accel, mag: a.mag * 1.4 + Synthetic.hardIronOffset)
        }
        #expect(try #require(out).interference)
        #expect(try #require(out).accuracy > 20)
    }

    @Test func unusableSampleReturnsNil() {
        var pipeline = HeadingPipeline()
        #expect(pipeline.process(timestamp: 0, accel: .zero, mag: Vector3(1, 2, 3)) == nil)
        #expect(pipeline.process(timestamp: .nan, accel: Vector3(0, 0, 9.8), mag: Vector3(1, 2, 3)) == nil)
    }
}

@Suite struct HeadingPipelineNoiseTests {
    @Test func steadyTurnIsNotNoiseButJitterIs() throws {
        var turning = HeadingPipeline(calibration: HeadingPipelineTests.calibration)
        var jittery = HeadingPipeline(calibration: HeadingPipelineTests.calibration)
        var rng = SeededGenerator(seed: 21)
        var lastTurning: HeadingPipeline.Output?
        var lastJittery: HeadingPipeline.Output?
        for i in 0..<500 {
            let t = Double(i) * 0.01
            let a = Synthetic.reading(heading: 30 * t, pitch: 5, roll: 0)
            lastTurning = turning.process(timestamp: t, accel: a.accel, mag: a.mag + Synthetic.hardIronOffset)
            let b = Synthetic.reading(heading: 200 + 6 * rng.nextGaussian(), pitch: 5, roll: 0)
            lastJittery = jittery.process(timestamp: t, accel: b.accel, mag: b.mag + Synthetic.hardIronOffset)
        }
        #expect(try #require(lastTurning).accuracyComponents.noise < 1)
        #expect(try #require(lastJittery).accuracyComponents.noise > 3)
    }
}
