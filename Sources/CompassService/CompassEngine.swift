import Bus
import CompassKit
import Foundation
import GeoMagnetism
import Logging
import Metrics
import ServiceRuntime

/// The actor that owns every device's state and applies messages to it one at a time.
///
/// The service's one subscription (all input filters together) hands messages over in arrival
/// order, so a device's location, commands and samples are applied in the order they were
/// received across topics. The timer task calls ``tick()`` for stale devices and held headings.
actor CompassEngine {
    private let configuration: CompassConfiguration
    private let model: WorldMagneticModel
    private let context: BusServiceContext
    private let decoder = PayloadDecoder()
    private let encoder: JSONEncoder
    /// The service's clock (the context's): windows, stale detection and heading timestamps run on it.
    private let clock: ServiceClock
    /// The devices, at most `maxDevices`; one idle a minute gives its place to a new one (``DeviceTable``).
    private var devices: DeviceTable<DeviceCompass>
    private var outbox: [DeviceCompass.Outbound] = []
    /// Messages waiting to be published, in the order the state changed. The engine is an actor, and a publish
    /// suspends: if the timer and the message handler each published their own list, a heading and bearing lock
    /// computed by the timer before an `unlock` could reach the broker after the unlocked bearing lock and stay
    /// retained (the dashboard then showed "Locked on …" for ever). One queue, drained by whichever caller finds it
    /// idle, keeps the broker's order the order of the changes.
    private var pending: [(device: String, outbound: DeviceCompass.Outbound)] = []
    private var draining = false
    /// `stepcompass_compass_headings_published_total` and `…_held_total` (a change held back by the rate limit, to
    /// be published when its window ends unless it goes stale or a newer state replaces it).
    private let headingsPublished: Counter
    private let headingsHeld: Counter

    init(configuration: CompassConfiguration, model: WorldMagneticModel, context: BusServiceContext) {
        self.configuration = configuration
        self.model = model
        self.context = context
        encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        clock = context.clock
        headingsPublished = context.metrics.counter("stepcompass_compass_headings_published_total")
        headingsHeld = context.metrics.counter("stepcompass_compass_headings_held_total")
        devices = DeviceTable(capacity: max(1, configuration.maxDevices))
    }

    /// The number of devices seen so far.
    var deviceCount: Int { devices.count }

    private func now() -> DeviceCompass.Moment {
        let instant = clock.now
        return DeviceCompass.Moment(date: clock.date(at: instant), wall: instant.offset.inSeconds)
    }

    /// Applies one received message; a bad one is reported on the error topic and dropped.
    /// Handles messages in order, in one visit to the actor.
    func handle(_ messages: [BusMessage]) async {
        for message in messages {
            let started = ContinuousClock.now
            await handle(message)
            context.metrics.handled(message, since: started)
        }
    }

    func handle(_ message: BusMessage) async {
        if context.isCleared(message) { return }
        let device: String
        do {
            device = try apply(message)
        } catch {
            outbox.removeAll(keepingCapacity: true)
            await context.errors.reject(message, reason: error.message)
            return
        }
        guard !outbox.isEmpty else { return }
        await publish(for: device)
    }

    /// When the start-up restore last received a message (or began).
    private(set) var lastRestoreActivity: ContinuousClock.Instant?
    /// The number of bearing locks and north settings restored at start-up.
    private(set) var restored = (locks: 0, settings: 0)

    /// Marks the start of the restore, so its quiet period counts from the subscription.
    func beginRestore() {
        lastRestoreActivity = .now
    }

    /// Applies one message of the start-up restore: a retained `bearing-lock` or `heading` published by an
    /// earlier run. Live (non-retained) messages are ignored; a bad one is reported and dropped.
    func restore(_ message: BusMessage) async {
        lastRestoreActivity = .now
        guard message.retain, !message.payload.isEmpty else { return }
        do {
            try applyRestore(message)
        } catch {
            await context.errors.reject(message, reason: error.message)
        }
    }

    private func applyRestore(_ message: BusMessage) throws(InputError) {
        guard let (device, topic) = context.topics.parseDeviceTopic(message.topic) else {
            throw InputError("'\(message.topic.prefix(80))' is not a topic the compass service restores")
        }
        try DeviceID.validate(device)
        switch topic {
        case .bearingLock:
            let input = try decoder.decode(BearingLockMessage.self, from: message.payload)
            if try self.device(device).restoreLock(input) { restored.locks += 1 }
        case .heading:
            let input = try decoder.decode(HeadingMessage.self, from: message.payload)
            let compass = try self.device(device)
            if try compass.restoreNorth(input) { restored.settings += 1 }
            compass.restoreReference(input)
        default:
            throw InputError("the compass service does not restore '\(topic.rawValue)' topics")
        }
    }

    /// The timer: stale devices and held headings whose window has ended.
    func tick() async {
        let moment = now()
        // Collect first, publish after: a message handled while a publish is suspended may add or evict a
        // device, which would change the table under the loop.
        var due: [(device: String, messages: [DeviceCompass.Outbound])] = []
        var messages: [DeviceCompass.Outbound] = []
        for (id, device) in devices {
            device.tick(at: moment, into: &messages)
            if !messages.isEmpty {
                due.append((id, messages))
                messages.removeAll(keepingCapacity: true)
            }
        }
        for (device, messages) in due {
            await enqueue(messages, for: device)
        }
    }

    /// Applies a message to its device's state.
    /// - Returns: The device it was for.
    private func apply(_ message: BusMessage) throws(InputError) -> String {
        guard let (device, topic) = context.topics.parseDeviceTopic(message.topic) else {
            throw InputError("'\(message.topic.prefix(80))' is not a topic of the compass service")
        }
        try DeviceID.validate(device)
        let moment = now()
        switch topic {
        case .imu:
            let payload = try IMUPayload.decode(message.payload, using: decoder)
            try payload.validate()
            let input = IMUInput(payload)
            let date = try Timestamp.date(input.timestamp, received: moment.date)
            try self.device(device).sample(input, date: date, at: moment, into: &outbox)
        case .location:
            let input = try decoder.decode(LocationMessage.self, from: message.payload)
            _ = try Timestamp.date(input.timestamp, received: moment.date)
            let environment: MagneticEnvironment
            do {
                environment = try MagneticEnvironment(
                    model: model, latitude: input.latitude, longitude: input.longitude,
                    altitude: input.altitude ?? 0)
            } catch {
                throw InputError(error.detail.isEmpty ? error.name : error.detail)
            }
            let compass = try self.device(device)
            compass.locate(environment, at: moment, into: &outbox)
            if let speed = input.speed, let course = input.course {
                compass.fuseCourse(course, speed: speed)
            }
        case .permissions:
            let input = try decoder.decode(PermissionsMessage.self, from: message.payload)
            if let location = input.location { _ = try SensorPermission.parse(location, field: "location") }
            guard let motion = input.motion else { return device }
            let permission = try SensorPermission.parse(motion, field: "motion")
            try self.device(device).permit(motion: permission, at: moment, into: &outbox)
        case .commandSettings, .commandCalibrate, .commandBearingLock:
            // The contract's one command decoder, with the wording the dashboard and the client use too.
            switch try DeviceCommand.decode(topic, json: message.payload) {
            case .north(let reference): try self.device(device).setNorth(reference, at: moment, into: &outbox)
            case .calibrate(let reset): try self.device(device).calibrate(reset: reset, at: moment, into: &outbox)
            case .lock(let bearing, let threshold):
                try self.device(device).lock(bearing: bearing, threshold: threshold, at: moment, into: &outbox)
            case .unlock: try self.device(device).unlock(into: &outbox)
            case .resetPosition, .walk: break  // not read from these topics
            }
        case .commandForget:
            // The device's retained topics are being cleared: not to be published again after a reconnect.
            context.stopRestating(device: device)
        case .calibration:
            // Only retained messages are restores; live ones are this service's own publications.
            guard message.retain, !message.payload.isEmpty else { return device }
            let input = try decoder.decode(CalibrationMessage.self, from: message.payload)
            if try self.device(device).restore(input) {
                context.logger.info("restored a calibration", metadata: ["device": "\(device)"])
            }
        default:
            throw InputError("the compass service does not handle '\(topic.rawValue)' topics")
        }
        return device
    }

    /// The state of a device, created at its first message; each call counts as a use of the device.
    /// - Throws: `InputError` when the service tracks `--max-devices` devices and none has been idle long enough to
    ///   give its place (an evicted device's calibration, bearing lock and north setting are forgotten: its retained
    ///   messages are read again only at the next start).
    private func device(_ id: String) throws(InputError) -> DeviceCompass {
        try devices.track(id, at: clock.now, context: context) {
            DeviceCompass(configuration: configuration, held: headingsHeld)
        }.value
    }

    /// Publishes what a device produced, in order. A publish failure is logged, not fatal: the
    /// next change publishes again.
    private func publish(for device: String) async {
        let messages = outbox
        outbox.removeAll(keepingCapacity: true)
        await enqueue(messages, for: device)
    }

    /// Queues `messages` behind those already waiting and, unless another caller is publishing the queue now,
    /// publishes it until it is empty.
    private func enqueue(_ messages: [DeviceCompass.Outbound], for device: String) async {
        pending.append(contentsOf: messages.lazy.map { (device, $0) })
        guard !draining else { return }
        draining = true
        while !pending.isEmpty {
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            for (device, outbound) in batch { await publish(outbound, for: device) }
        }
        draining = false
    }

    private func publish(_ outbound: DeviceCompass.Outbound, for device: String) async {
        do {
            let message: BusMessage
            switch outbound {
            case .heading(let heading):
                message = BusMessage(
                    topic: context.topics.device(device, .heading),
                    payload: try heading.jsonPayload() ?? encoder.encode(heading),
                    qos: .atMostOnce, retain: true)
            case .calibration(let calibration):
                message = BusMessage(
                    topic: context.topics.device(device, .calibration), payload: try encoder.encode(calibration),
                    qos: .atLeastOnce, retain: true)
            case .bearingLock(let lock):
                message = BusMessage(
                    topic: context.topics.device(device, .bearingLock), payload: try encoder.encode(lock),
                    qos: .atLeastOnce, retain: true)
            }
            // Stated again after a reconnect: a broker restarted without its store has lost them, and a compass started
            // after that would have no dead-band reference (its first heading, a hair off, would move every position).
            try await context.publishRestated(message)
            if case .heading = outbound { headingsPublished.increment() }
        } catch {
            context.logger.warning("could not publish", metadata: ["device": "\(device)", "error": "\(error)"])
        }
    }
}
