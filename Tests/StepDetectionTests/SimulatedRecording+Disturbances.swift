import Foundation
import StepDetection

/// Recordings in which nobody walks: every one must count zero steps.
extension SimulatedRecording {
    /// Samples at `rate` Hz (with jitter) over `duration` s; `motion(t)` gives the device-to-world rotation and
    /// the device's own acceleration (world frame, m/s²).
    static func still(
        rate: Double,
        duration: Double,
        seed: UInt64,
        motion: (Double) -> (Rotation, SIMD3<Double>) = { _ in (.identity, .zero) }
    ) -> SimulatedRecording {
        var random = SeededRandom(seed: seed)
        let bias = SIMD3(random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2), random.uniform(-0.2, 0.2))
        var recording = SimulatedRecording()
        var time = 0.0
        while time < duration {
            let (pose, acceleration) = motion(time)
            let toDevice = pose.transposed
            var reading = toDevice.apply(acceleration + SIMD3(0, 0, gravity)) + bias
            reading += SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * 0.04
            let field = toDevice.apply(fieldWorld)
            recording.samples.append(
                SimulatedSample(time: time, acceleration: reading, magneticField: field, rotationRate: .zero)
            )
            time += (1 / rate) * (1 + random.uniform(-0.15, 0.15))
        }
        return recording
    }

    /// A smooth move of `distance` (world vector, m) over `duration` s starting at `start`: its acceleration.
    static func move(_ t: Double, start: Double, duration: Double, distance: SIMD3<Double>) -> SIMD3<Double> {
        guard t >= start, t <= start + duration else { return .zero }
        // Position d·(s − sin(2πs)/2π), s in 0...1: a raised-cosine velocity.
        let s = (t - start) / duration
        return distance * (2 * Double.pi / (duration * duration)) * sin(2 * Double.pi * s)
    }

    /// Lying face up on a table with sensor noise.
    static func lyingStill(rate: Double, seed: UInt64) -> SimulatedRecording {
        still(rate: rate, duration: 60, seed: seed)
    }

    /// Picked up from a table (0.8 s, 35 cm up and tilted towards the user), looked at, put back down.
    static func pickUpAndPutDown(rate: Double, seed: UInt64) -> SimulatedRecording {
        still(rate: rate, duration: 16, seed: seed) { t in
            let lift = move(t, start: 3, duration: 0.8, distance: [0.1, -0.15, 0.35])
            let lower = move(t, start: 9, duration: 1.5, distance: [-0.1, 0.15, -0.35])
            let tilt: Double
            switch t {
            case ..<3: tilt = 0
            case 3..<3.8: tilt = 40 * (t - 3) / 0.8
            case 3.8..<9: tilt = 40 + 2 * sin(7 * t)
            case 9..<10.5: tilt = 40 * (1 - (t - 9) / 1.5)
            default: tilt = 0
            }
            return (Rotation.x(tilt), lift + lower)
        }
    }

    /// Held still, then shaken at `frequency` Hz for 4 s along `direction` (world), then held still.
    static func shaken(rate: Double, frequency: Double, direction: SIMD3<Double>, seed: UInt64) -> SimulatedRecording {
        let unit = direction / (direction * direction).sum().squareRoot()
        return still(rate: rate, duration: 12, seed: seed) { t in
            guard t >= 4, t < 8 else { return (Rotation.x(30), .zero) }
            let envelope = min(1, (t - 4) / 0.3, (8 - t) / 0.3)
            let amplitude = 6.0 * envelope
            let roll = 15 * sin(2 * Double.pi * frequency * t)
            return (Rotation.x(30) * Rotation.y(roll), unit * amplitude * sin(2 * Double.pi * frequency * t))
        }
    }

    /// Lying on a table that is knocked `knocks` times (0.4 s apart): short 25 Hz bursts of 6 m/s².
    static func knocked(rate: Double, knocks: Int, seed: UInt64) -> SimulatedRecording {
        still(rate: rate, duration: 10, seed: seed) { t in
            var acceleration = SIMD3<Double>.zero
            for knock in 0..<knocks {
                let since = t - (4 + 0.4 * Double(knock))
                if since >= 0 && since < 0.25 {
                    let burst = 6 * exp(-since / 0.04) * sin(2 * Double.pi * 25 * since)
                    acceleration += SIMD3(0.3 * burst, 0.2 * burst, burst)
                }
            }
            return (.identity, acceleration)
        }
    }
}
