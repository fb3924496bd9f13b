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
        /// The ``State/uses`` of the device's last sample: the least recently used device is dropped first.
        var lastUse: UInt64
        /// The ``State/round`` of the device's last sample: a device silent for some rounds has its held step judged.
        var lastRound: UInt64 = 0
        /// Whether the device is in ``State/holding``.
        var listedHolding = false

        /// Feeds one sample, heard in `round`; returns the steps it released and whether ``listedHolding`` changed
        /// (the device is to be added to or removed from ``State/holding``).
        mutating func add(time: Double, acceleration: SIMD3<Double>, round: UInt64) -> (found: DetectedSteps, listingChanged: Bool) {
            lastRound = round
            let found = detector.add(time: time, acceleration: acceleration)
            guard detector.isHoldingStep != listedHolding else { return (found, false) }
            listedHolding.toggle()
            return (found, true)
        }
    }

    private let messages: ContractMessages
    private let configuration: StepDetectorConfiguration
    private let maxDevices: Int
    private let logger: Logger
    private struct State {
        var devices: [String: Device] = [:]
        var detectedSteps = 0
        /// Samples and pedometer counts seen, a clock for least recently used (cheaper than reading a clock).
        var uses: UInt64 = 0
        /// Rounds of ``StepCounter/finishSilent(rounds:)``: a clock for silence that costs a sample nothing.
        var round: UInt64 = 0
        /// The devices whose detector holds a step (walking ones): all that ``StepCounter/finishSilent(rounds:)``
        /// visits.
        var holding: Set<String> = []
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
    ///
    /// The device's detector is changed where it is stored: one hash lookup and no copy of its state a sample.
    func sample(device: String, time: Double, acceleration: SIMD3<Double>) -> BusMessage? {
        let count: (steps: Int, distance: Double, time: Double)? = state.withLock { state in
            let index = Self.index(of: device, in: &state, configuration: configuration, maxDevices: maxDevices)
            let (found, listingChanged) = state.devices.values[index].add(time: time, acceleration: acceleration, round: state.round)
            if listingChanged {
                if state.devices.values[index].listedHolding { state.holding.insert(device) } else { state.holding.remove(device) }
            }
            return Self.countGrew(found, at: index, in: &state)
        }
        guard let count else { return nil }
        return messages.steps(device: device, steps: count.steps, distance: count.distance, source: .detector, time: count.time)
    }

    /// Judges the step each silent device holds for confirmation, as when its walk ends: a phone that stops sending
    /// right after its last step (the app stopped, the connection lost) gets that step without a next one. Call it
    /// at a steady interval; a device is silent when it sent no sample during the last `rounds` calls. Returns the
    /// `steps` messages to publish.
    func finishSilent(rounds: UInt64) -> [BusMessage] {
        let counts: [(device: String, steps: Int, distance: Double, time: Double)] = state.withLock { state in
            state.round &+= 1
            var counts: [(device: String, steps: Int, distance: Double, time: Double)] = []
            var silent: [String] = []
            for device in state.holding {
                guard let index = state.devices.index(forKey: device) else { continue }
                if state.round &- state.devices.values[index].lastRound >= rounds { silent.append(device) }
            }
            for device in silent {
                state.holding.remove(device)
                guard let index = state.devices.index(forKey: device) else { continue }
                state.devices.values[index].listedHolding = false
                let found = state.devices.values[index].detector.finish()
                if let count = Self.countGrew(found, at: index, in: &state) {
                    counts.append((device, count.steps, count.distance, count.time))
                }
            }
            return counts
        }
        return counts.map {
            messages.steps(device: $0.device, steps: $0.steps, distance: $0.distance, source: .detector, time: $0.time)
        }
    }

    /// Notes the steps `found` for the device at `index`; the count to publish when it grew and the device has no
    /// pedometer.
    private static func countGrew(
        _ found: DetectedSteps, at index: Dictionary<String, Device>.Index, in state: inout State
    ) -> (steps: Int, distance: Double, time: Double)? {
        state.detectedSteps += found.count
        guard let last = found.last else { return nil }
        let entry = state.devices.values[index]
        guard !entry.pedometer, entry.detector.steps != entry.published else { return nil }
        state.devices.values[index].published = entry.detector.steps
        return (entry.detector.steps, entry.detector.distance, last.time)
    }

    /// Records that `device` has a pedometer: the detector publishes nothing more for it.
    func pedometerSeen(device: String) {
        let first = state.withLock { state in
            let index = Self.index(of: device, in: &state, configuration: configuration, maxDevices: maxDevices)
            defer { state.devices.values[index].pedometer = true }
            return !state.devices.values[index].pedometer
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

    /// The index of `device`'s entry, made (dropping the least recently used device when full) if it is new, and
    /// marked as used.
    private static func index(
        of device: String, in state: inout State, configuration: StepDetectorConfiguration, maxDevices: Int
    ) -> Dictionary<String, Device>.Index {
        state.uses &+= 1
        if let index = state.devices.index(forKey: device) {
            state.devices.values[index].lastUse = state.uses
            return index
        }
        if state.devices.count >= maxDevices { evictIdlest(from: &state, maxDevices: maxDevices) }
        state.devices[device] = Device(detector: StepDetector(configuration: configuration), lastUse: state.uses)
        // Inserting may have grown the table: look the new entry up again.
        return state.devices.index(forKey: device)!
    }

    /// Drops the least recently used sixteenth of `maxDevices` devices at once: one pass over the table (on the bus's
    /// thread) for every `maxDevices / 16` new devices, rather than one pass for each.
    private static func evictIdlest(from state: inout State, maxDevices: Int) {
        let dropping = max(1, maxDevices / 16)
        let uses = state.devices.values.map(\.lastUse).sorted()
        let cutoff = uses[min(dropping, uses.count) - 1]
        for (device, entry) in state.devices where entry.lastUse <= cutoff {
            state.devices[device] = nil
            state.holding.remove(device)
        }
    }
}
