import Foundation
import StepDetection
import Testing

@Suite("Walking direction")
struct WalkingDirectionEstimatorTests {
    static func angleError(_ a: Double, _ b: Double) -> Double {
        let d = (a - b).truncatingRemainder(dividingBy: 360)
        return abs(d > 180 ? d - 360 : (d < -180 ? d + 360 : d))
    }

    /// Runs detector and estimator together; returns the direction after each second of walking.
    static func directions(
        _ recording: SimulatedRecording, gyroscope: Bool
    ) -> [(time: Double, direction: Double?)] {
        var detector = StepDetector()
        var estimator = WalkingDirectionEstimator()
        var result: [(Double, Double?)] = []
        var nextReport = 0.0
        for sample in recording.samples {
            estimator.add(
                time: sample.time,
                acceleration: sample.acceleration,
                magneticField: sample.magneticField,
                rotationRate: gyroscope ? sample.rotationRate : nil
            )
            for step in detector.add(time: sample.time, acceleration: sample.acceleration) {
                estimator.addStep(at: step.time)
            }
            if sample.time >= nextReport {
                result.append((sample.time, estimator.direction))
                nextReport += 1
            }
        }
        return result
    }

    @Test(
        "Texting and pocket carries: within 20° of the walking direction after a few strides",
        arguments: [(Carry.texting, 40.0), (.texting, 250), (.pocket, 120), (.pocket, 310), (.hand, 200)])
    func followsWalkingDirection(carry: Carry, heading: Double) {
        for gyroscope in [false, true] {
            let recording = SimulatedRecording.walk(
                carry: carry, rate: 100, cadence: 1.8, heading: heading, walking: 40, gapCount: 0, seed: 77
            )
            let reports = Self.directions(recording, gyroscope: gyroscope)
            // From 10 s of walking (standing 3 s first) to the end of the walk.
            let walking = reports.filter { $0.time >= 13 && $0.time <= 42 }
            #expect(!walking.isEmpty)
            for report in walking {
                guard let direction = report.direction else {
                    Issue.record("\(carry) gyro \(gyroscope): no direction at \(report.time) s")
                    continue
                }
                #expect(direction >= 0 && direction < 360)
                #expect(
                    Self.angleError(direction, heading) <= 20,
                    "\(carry) gyro \(gyroscope): \(direction)° at \(report.time) s, walking \(heading)°"
                )
            }
        }
    }

    @Test("Unknown before any stride")
    func unknownAtFirst() {
        var estimator = WalkingDirectionEstimator()
        #expect(estimator.direction == nil)
        estimator.add(time: 0, acceleration: [0, 0, 9.81], magneticField: [0, 20, -40])
        estimator.add(time: 0.01, acceleration: [0, 0, 9.81], magneticField: nil)
        #expect(estimator.direction == nil)
    }

    @Test("A GPS course pulls the direction towards it, and is ignored when standing")
    func gpsCourse() {
        var estimator = WalkingDirectionEstimator()
        estimator.fuseCourse(90, speed: 0.1)
        #expect(estimator.direction == nil)
        estimator.fuseCourse(90, speed: 1.4, weight: 1)
        #expect(Self.angleError(estimator.direction ?? -1, 90) < 1e-6)
        for _ in 0..<30 { estimator.fuseCourse(180, speed: 1.4, weight: 0.3) }
        #expect(Self.angleError(estimator.direction ?? -1, 180) < 2)
    }
}
