// Benchmarks for the compass maths (ordo-one/package-benchmark 1.38).
//
// Run with `make benchmark`. The figure that matters: samples per second through the pure heading
// pipeline on one core (tilt compensation, calibration, declination, smoothing, accuracy), and the same
// with the calibration fitter fed every sample. The service must keep up with 1000 devices at 50 Hz,
// 50,000 samples/s, on this 2-core machine.

import Benchmark
import CompassKit
import Foundation
import GeoMagnetism

/// A phone walking north-east, pitched up 35°, with a little sway: 50 Hz samples in the contract's frame.
func samples(count: Int) -> [(Double, Vector3, Vector3)] {
    let field = Vector3(x: 0, y: 20.9, z: -44.0)  // µT, device flat facing north: y north, z up
    return (0..<count).map { index in
        let t = Double(index) / 50
        let pitch = (35 + 2 * sin(t * 3)) * .pi / 180
        let yaw = (45 + 5 * sin(t)) * .pi / 180
        let gravity = Vector3(x: 0, y: 9.81 * sin(pitch), z: 9.81 * cos(pitch))
        let rotatedField = Vector3(
            x: field.y * sin(yaw), y: field.y * cos(yaw) * cos(pitch) + field.z * sin(pitch),
            z: -field.y * cos(yaw) * sin(pitch) + field.z * cos(pitch))
        return (t, gravity, rotatedField + Vector3(x: 12, y: -7, z: 3))
    }
}

let benchmarks: @Sendable () -> Void = {
    let input = samples(count: 50_000)
    let calibration = Calibration(
        hardIron: Vector3(x: 12, y: -7, z: 3), softIron: .identity, quality: 0.9, coverage: 0.9,
        fitResidual: 0.3, fieldStrength: 48.7)

    Benchmark(
        "Heading pipeline (tilt, calibration, declination, smoothing), per sample",
        configuration: .init(metrics: [.throughput, .wallClock], scalingFactor: .kilo, maxDuration: .seconds(5))
    ) { benchmark in
        var pipeline = HeadingPipeline(calibration: calibration, declination: 4.3)
        var index = 0
        for _ in benchmark.scaledIterations {
            let (t, accel, mag) = input[index % input.count]
            blackHole(pipeline.process(timestamp: t + Double(index / input.count) * 1000, accel: accel, mag: mag))
            index += 1
        }
    }

    Benchmark(
        "Heading pipeline plus calibration fitter, per sample",
        configuration: .init(metrics: [.throughput, .wallClock], scalingFactor: .kilo, maxDuration: .seconds(5))
    ) { benchmark in
        var pipeline = HeadingPipeline(calibration: calibration, declination: 4.3)
        var fitter = CalibrationFitter(expectedFieldStrength: 48.7, expectedInclination: 64.5)
        var index = 0
        for _ in benchmark.scaledIterations {
            let (t, accel, mag) = input[index % input.count]
            let time = t + Double(index / input.count) * 1000
            blackHole(fitter.add(mag, at: time, gravity: accel))
            blackHole(pipeline.process(timestamp: time, accel: accel, mag: mag))
            index += 1
        }
    }

    Benchmark(
        "World Magnetic Model 2025, full synthesis per call",
        configuration: .init(metrics: [.throughput, .wallClock], scalingFactor: .kilo, maxDuration: .seconds(5))
    ) { benchmark in
        let model = try WorldMagneticModel.wmm2025()
        var latitude = -80.0
        for _ in benchmark.scaledIterations {
            blackHole(try model.field(latitude: latitude, longitude: 11.6, altitude: 500, decimalYear: 2026.9))
            latitude = latitude >= 80 ? -80 : latitude + 0.37
        }
    }
}
