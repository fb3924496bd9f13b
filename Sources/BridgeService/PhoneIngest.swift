import Bus
import Logging
import PhoneFormats
import ServiceRuntime

/// Turns what phones push into the contract's device messages and publishes them: one Sensor Logger session
/// per device (its platform convention, reorder buffer and IMU assembler), and single location fixes from
/// OwnTracks and gpsd.
///
/// Each device's samples are published in time order: a push batch is held in the session's reorder buffer
/// until it is ``BridgeConfiguration/reorderDelay`` seconds of sample time behind the newest sample, so a
/// batch that arrives late (Sensor Logger's `messageId` out of order) still lands in place; ``flushIdle(after:)``
/// releases what a phone that stopped sending left behind. Devices beyond ``BridgeConfiguration/maxDevices``
/// push out the one idle longest.
actor PhoneIngest {
    private struct Device {
        var session: SensorLoggerSession
        var lastUsed: ContinuousClock.Instant
        var permissionsLocation: Bool?
        /// Whether the log already said that this phone sends acceleration without a magnetometer.
        var toldWithoutMagnetometer = false
    }

    /// What a push became.
    struct Outcome: Sendable, Equatable {
        var imu = 0
        /// Acceleration samples without a magnetometer reading: not published (the contract's `imu` needs `mag`),
        /// but counted for steps.
        var accelerationOnly = 0
        var locations = 0
        var steps = 0
    }

    private let context: BusServiceContext
    private let messages: ContractMessages
    private let configuration: BridgeConfiguration
    private let logger: Logger
    private let steps: StepCounter
    /// The bridge's metrics: the routes, the bus side and the gpsd reader count their batches here too.
    nonisolated let metrics: BridgeMetrics?
    private var devices: [String: Device] = [:]
    /// The devices whose outputs are being published (a publish suspends, and the actor may take other work
    /// meanwhile): ``flushIdle(after:)`` leaves them alone, so a held batch is never published in the middle of the
    /// batch before it (a push that took longer than the idle time to publish, on a loaded machine, was interleaved so).
    private var publishing: [String: Int] = [:]
    /// The number of devices last recorded in `stepcompass_devices_tracked`.
    private var trackedCount = 0

    init(context: BusServiceContext, configuration: BridgeConfiguration, steps: StepCounter, metrics: BridgeMetrics? = nil) {
        self.context = context
        self.messages = ContractMessages(topics: context.topics)
        self.configuration = configuration
        self.steps = steps
        self.metrics = metrics
        self.logger = context.logger
    }

    /// Publishes what a Sensor Logger push body holds for `device`.
    /// - Parameters:
    ///   - device: The contract's device id.
    ///   - message: The decoded push body.
    ///   - convention: The phone's platform when the user said it (`?platform=`); else it is recognised from the
    ///     data (see ``PhoneFormats/SensorLoggerConvention``).
    func sensorLogger(device: String, _ message: SensorLoggerMessage, convention: SensorLoggerConvention? = nil) async throws -> Outcome {
        var entry = take(device, convention: convention)
        let outputs = entry.session.receive(message)
        devices[device] = entry
        noteDeviceCount()
        try await publishPermissions(
            device: device,
            location: message.readings.contains { reading in
                if case .location = reading.sensor { return true }
                return false
            })
        return try await publish(outputs, device: device)
    }

    /// Publishes one location fix (OwnTracks, gpsd).
    func location(device: String, _ fix: LocationSample) async throws {
        var entry = take(device)
        entry.lastUsed = .now
        devices[device] = entry
        noteDeviceCount()
        try await publishPermissions(device: device, location: true)
        if let message = messages.location(device: device, fix) { try await context.bus.publish(message) }
    }

    /// Releases the samples of devices that sent nothing for `idle`.
    func flushIdle(after idle: Duration) async {
        let now = ContinuousClock.now
        for (device, var entry) in devices where now - entry.lastUsed >= idle && publishing[device] == nil {
            let outputs = entry.session.flush()
            guard !outputs.isEmpty else { continue }
            devices[device] = entry
            do {
                _ = try await publish(outputs, device: device)
            } catch {
                logger.warning("could not publish a phone's last samples", metadata: ["device": "\(device)", "error": "\(error)"])
            }
        }
    }

    /// The number of devices tracked.
    var deviceCount: Int { devices.count }

    /// Records the number of devices when it changed (a new phone, or the idlest one forgotten for it).
    private func noteDeviceCount() {
        guard devices.count != trackedCount else { return }
        trackedCount = devices.count
        metrics?.instruments.devicesTracked(trackedCount)
    }

    private func take(_ device: String, convention: SensorLoggerConvention? = nil) -> Device {
        if var entry = devices[device], convention == nil || entry.session.convention == convention {
            entry.lastUsed = .now
            return entry
        }
        if devices.count >= configuration.maxDevices, let idlest = devices.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            devices[idlest.key] = nil
            context.stopRestating(device: idlest.key)
            logger.notice(
                "forgot the phone idle longest: too many devices",
                metadata: [
                    "device": "\(idlest.key)", "bridge.maxDevices": "\(configuration.maxDevices)",
                ])
        }
        logger.info("new phone", metadata: ["device": "\(device)"])
        return Device(
            session: SensorLoggerSession(
                convention: convention, pipeline: PhoneDevicePipeline(reorderDelay: configuration.reorderDelay)),
            lastUsed: .now, permissionsLocation: nil)
    }

    private func publishPermissions(device: String, location: Bool) async throws {
        guard var entry = devices[device] else { return }
        // Published once, then only upgraded: a batch without a fix does not take the location permission back.
        guard entry.permissionsLocation == nil || (entry.permissionsLocation == false && location) else { return }
        entry.permissionsLocation = location
        devices[device] = entry
        // Stated again after every reconnect, as the phone's own app would: a broker that lost its store forgets it.
        try await context.publishRestated(messages.permissions(device: device, location: location))
    }

    private func publish(_ outputs: [PhoneOutput], device: String) async throws -> Outcome {
        publishing[device, default: 0] += 1
        defer {
            let left = (publishing[device] ?? 1) - 1
            publishing[device] = left > 0 ? left : nil
        }
        var outcome = Outcome()
        // A pedometer count stops the detector for the device now, before any acceleration of this batch reaches it
        // (waiting for the count to come back over the bus would let the two counts overlap).
        if configuration.detectSteps, outputs.contains(where: { if case .steps = $0 { true } else { false } }) {
            steps.pedometerSeen(device: device)
        }
        for output in outputs {
            switch output {
            case .imu(let sample):
                outcome.imu += 1
                if let message = messages.imu(device: device, sample) { try await context.bus.publish(message) }
            case .acceleration(let sample):
                outcome.accelerationOnly += 1
                // No `imu` can carry it, so no detector on the bus would see it: this bridge's own detector takes it
                // directly (the same per-device detector as for the device's `imu`).
                guard configuration.detectSteps else { continue }
                if let message = steps.sample(
                    device: device, time: sample.timestamp, acceleration: sample.accel.simd)
                {
                    try await context.bus.publish(message)
                }
            case .location(let fix):
                outcome.locations += 1
                if let message = messages.location(device: device, fix) { try await context.bus.publish(message) }
            case .steps(let count):
                outcome.steps += 1
                let distance = steps.pedometerDistance(device: device, steps: count.steps)
                try await context.bus.publish(
                    messages.steps(
                        device: device, steps: count.steps, distance: distance, source: .pedometer, time: count.timestamp))
            }
        }
        // Only when a whole batch had no magnetometer reading: a phone whose first rows come before its first
        // magnetometer row (the sensors start at different times) is not one without a magnetometer.
        if outcome.accelerationOnly > 0, outcome.imu == 0, devices[device]?.toldWithoutMagnetometer == false {
            devices[device]?.toldWithoutMagnetometer = true
            logger.notice(
                "this phone sends acceleration without a magnetometer: no imu is published for it (the contract's imu needs mag) until a magnetometer reading arrives; \(configuration.detectSteps ? "its steps are detected here" : "step detection is off")",
                metadata: ["device": "\(device)"])
        }
        return outcome
    }
}
