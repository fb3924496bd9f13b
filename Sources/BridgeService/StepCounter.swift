import Bus
import Foundation
import Logging
import ServiceRuntime
import StepDetection

/// Steps from the raw accelerometer, for devices that send `imu` but no pedometer count.
///
/// One ``StepDetection/StepDetector`` per device, fed from the bus's `imu` messages (whoever sent them: this
/// bridge, the simulator, a user's own publisher) and, for a phone pushing acceleration without a magnetometer (which
/// no `imu` can carry), by ``PhoneIngest`` directly. A device's count is published as the contract's `steps`,
/// cumulative from this detector's start, with `"source": "detector"` and the step-length model's
/// `distance`. A device never gets two counts: once a `steps` message that is not the detector's own arrives
/// for it (a pedometer), the detector stops publishing for that device, and keeps running only to give the
/// pedometer counts a distance (their number times the mean detected step length).
final class StepCounter: Sendable {
    private struct Device {
        var detector: StepDetector
        var pedometer = false
        var published = 0
        var lastUsed: ContinuousClock.Instant
    }

    private let messages: ContractMessages
    private let configuration: StepDetectorConfiguration
    private let maxDevices: Int
    private let logger: Logger
    private struct State {
        var devices: [String: Device] = [:]
        var detectedSteps = 0
    }

    /// One lock around the detectors: a sample costs well under a microsecond, less than an actor hop.
    private let state = LockedValue(State())

    /// Steps found by the detector since the start, for every device (the metric of detected steps).
    var detectedSteps: Int { state.withLock { $0.detectedSteps } }

    init(topics: Topics, stepLengthScale: Double, maxDevices: Int, logger: Logger) {
        self.messages = ContractMessages(topics: topics)
        var configuration = StepDetectorConfiguration.defaults
        configuration.stepLength.scale = stepLengthScale
        self.configuration = configuration
        self.maxDevices = maxDevices
        self.logger = logger
    }

    /// Feeds one accelerometer sample; returns the `steps` message to publish when the count grew.
    func sample(device: String, time: Double, acceleration: SIMD3<Double>) -> BusMessage? {
        let count: (steps: Int, distance: Double, time: Double)? = state.withLock { state in
            var entry = take(device, from: &state)
            let found = entry.detector.add(time: time, acceleration: acceleration)
            state.detectedSteps += found.count
            var result: (steps: Int, distance: Double, time: Double)?
            if let last = found.last, !entry.pedometer, entry.detector.steps != entry.published {
                entry.published = entry.detector.steps
                result = (entry.detector.steps, entry.detector.distance, last.time)
            }
            state.devices[device] = entry
            return result
        }
        guard let count else { return nil }
        return messages.steps(device: device, steps: count.steps, distance: count.distance, source: .detector, time: count.time)
    }

    /// Records that `device` has a pedometer: the detector publishes nothing more for it.
    func pedometerSeen(device: String) {
        let first = state.withLock { state in
            var entry = take(device, from: &state)
            defer {
                entry.pedometer = true
                state.devices[device] = entry
            }
            return !entry.pedometer
        }
        if first {
            logger.info("pedometer counts seen: the detector stops publishing for this device", metadata: ["device": "\(device)"])
        }
    }

    /// A distance for a pedometer's count: the count times the mean detected step length, once there is one.
    func pedometerDistance(device: String, steps: Int) -> Double? {
        state.withLock { $0.devices[device]?.detector.meanStepLength }.map { Double(steps) * $0 }
    }

    /// The number of devices tracked.
    var deviceCount: Int { state.withLock { $0.devices.count } }

    private func take(_ device: String, from state: inout State) -> Device {
        if var entry = state.devices[device] {
            entry.lastUsed = .now
            return entry
        }
        if state.devices.count >= maxDevices, let idlest = state.devices.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            state.devices[idlest.key] = nil
        }
        return Device(detector: StepDetector(configuration: configuration), lastUsed: .now)
    }
}
