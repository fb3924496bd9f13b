import Bus
import Foundation
import Logging
import Metrics
import PositionKit
public import ServiceLifecycle
public import ServiceRuntime

/// The position calculator service (`stepcompass-position`): pedestrian dead reckoning per device, over the bus.
///
/// It subscribes to `+/position`, `+/heading`, `+/steps` and `+/cmd/reset-position` in **one** subscription, so
/// that a device's messages are handled in the order in which the broker delivered them, whatever their topics.
/// Each device has its own ``DevicePosition`` around a ``PositionKit/PositionCalculator``; after each batch (and
/// after a step message that changes the total but completes no batch) it publishes the state as a retained QoS 1
/// message on `{device}/position`.
///
/// ## Cost per message
///
/// The service reads what its subscription has at hand (up to ``batchLimit`` messages) in one go, handles those
/// messages on its actor without suspending (the devices' states are values in its table, not actors of their own),
/// and publishes what they produced in one call: one hop from the bus to the actor and one back per batch, not
/// several per message. It subscribes to `+/position` with MQTT 5's No Local option, so that the broker does not
/// send it back the positions it publishes (over MQTT 3.1.1 it still gets them, and ignores them).
///
/// ## Restoring after a restart
///
/// The retained `position` message *is* the persisted state. After a restart (even a SIGKILL) the service must
/// learn it before applying the step messages that were queued for its persistent session while it was down,
/// but the broker hands those over right after connecting, *before* any retained message. So:
///
/// 1. The bus holds queued messages until a subscription matches them (see `SubscriptionRouter`); they land in
///    this service's one subscription first, followed by the retained `position` and `heading` messages
///    (delivered with `retain == true`).
/// 2. Right after subscribing, the service publishes a *sync marker* (a unique token, QoS 1) to its own
///    `services/position/sync` topic, which the same subscription receives. A broker handles a client's packets
///    in order: it sends a subscription's retained messages when it handles the SUBSCRIBE, before it handles the
///    later PUBLISH of the marker, so once the marker comes back every retained `position` and `heading` has
///    arrived. Until then the service applies only retained messages: a retained position restores its device
///    (``PositionKit/PositionCalculator/init(restoring:currentHeading:stepsPerUpdate:stepLength:)``, then
///    ``PositionKit/PositionCalculator/applyPendingBatches()``), a retained heading becomes the device's current
///    heading. Every other message is buffered, in arrival order. ``PositionConfiguration/settleWindow`` bounds
///    the wait should the marker be lost (for example when an ACL refuses it); the log says so.
/// 3. When the marker is back, the buffered messages are handled in order, so queued steps are counted once, on
///    top of the restored total, with the latest heading. A device with no retained position starts at (0, 0).
///
/// A retained position that arrives later still restores a device this run has not touched yet. Its own position
/// messages are not sent back to it (No Local), but another instance's, or its own over MQTT 3.1.1, arrive as live
/// (non-retained) messages: those are ignored, because only a retained position is a restore. The restore relies
/// on the broker sending a client's own *retained* messages when it subscribes, No Local or not: mosquitto does (the
/// restart tests and the chaos run check it). A broker that applies No Local to retained messages as well (EMQX did
/// in 2018) would leave nothing to restore from; with such a broker run the service over MQTT 3.1.1
/// (`MQTT_PROTOCOL=3.1.1`), which has no No Local. A QoS 1 step message delivered twice is a repeated count and
/// changes nothing.
///
/// ## Many devices
///
/// The service tracks at most ``PositionConfiguration/maxDevices`` devices (`--max-devices`, ``ServiceRuntime/DeviceTable``).
/// When it is full, a new device takes the place of the device idle the longest if that one has been idle a minute
/// (on the service's clock); otherwise the new device's messages are rejected on the error topic until one goes idle.
/// An evicted device's retained position stays on the broker, but the service reads retained positions only while it
/// settles: a device that comes back after its eviction starts again from (0, 0), its first step count the base of
/// the new walk.
///
/// Bad input (invalid JSON, a missing or out-of-range field, NaN, a bad device id, an oversized payload, a
/// retained position that cannot be restored) is reported on `stepcompass/errors/position` and dropped.
public actor PositionService: Service {
    private let configuration: PositionConfiguration
    private let context: BusServiceContext
    private let decoder = PayloadDecoder()
    private var devices: DeviceTable<DevicePosition>
    private var settled = false
    private var published = 0
    /// The position messages produced by the messages being handled, published together once they are handled.
    private var outgoing: [BusMessage] = []
    /// The most messages read from the subscription and handled at once.
    static let batchLimit = 256
    /// `stepcompass_position_batches_applied_total`: batches of `stepsPerUpdate` steps moved along a heading.
    private let batches: Counter

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: Batch size, step length and settle window.
    ///   - context: The bus, topics, logger and error reporter.
    /// - Throws: `PositionError.invalidConfiguration` for a batch size below 1 or a bad step length.
    public init(configuration: PositionConfiguration, context: BusServiceContext) throws {
        _ = try PositionCalculator(stepsPerUpdate: configuration.stepsPerUpdate, stepLength: configuration.stepLength)
        self.configuration = configuration
        self.context = context
        self.batches = context.metrics.counter("stepcompass_position_batches_applied_total")
        self.devices = DeviceTable(capacity: max(1, configuration.maxDevices))
    }

    /// Waits for the bus, subscribes, says ready, restores retained state during the settle window, then handles
    /// messages until the group shuts down, the task is cancelled or the bus closes.
    ///
    /// It runs on the bus's own thread where the bus has one (``MessageBus/taskExecutor``): a steps message is
    /// handled and its position written without a thread switch. Nothing here blocks: the device table is in memory,
    /// and a message costs a few microseconds.
    public func run() async throws {
        try await withTaskExecutorPreference(context.bus.taskExecutor) {
            try await context.serve { try await self.serve() }
        }
    }

    private func serve() async throws {
        let topics = context.topics
        let requests = try [Topics.DeviceTopic.position, .heading, .steps, .commandResetPosition, .commandForget].map {
            // No Local on `+/position`: the service reads retained positions to restore, not its own live output.
            SubscriptionRequest(try TopicFilter(topics.allDevices($0)), qos: .atLeastOnce, noLocal: $0 == .position)
        }
        context.logger.info(
            "subscribing; restoring retained positions",
            metadata: [
                "position.sync": "\(context.syncTopic)",
                "position.stepsPerUpdate": "\(configuration.stepsPerUpdate)",
                "position.stepLength": "\(configuration.estimatedStepLength ? "estimated" : "\(configuration.stepLength)")",
                "position.headingSource": "\(configuration.headingSource.rawValue)",
            ])
        let settledSubscription = try await context.subscribeSettled(to: requests, window: configuration.settleWindow) { message in
            try await handle(message)
            try await publishOutgoing()
        }
        let buffered = settledSubscription.queued
        settled = true
        context.logger.info(
            "settled",
            metadata: [
                "position.devices": "\(devices.count)", "position.queued": "\(buffered.count)",
            ])
        for (index, message) in buffered.enumerated() {
            try await handle(message)
            if index % Self.batchLimit == Self.batchLimit - 1 {
                try await publishOutgoing()
                // The backlog can be long (every device's retained position and queued messages): on the bus's
                // thread, a yield lets it read and keep the connection alive (after NetworkExecutor.roundLimit
                // rounds of jobs, here every 32 batches).
                await Task.yield()
            }
        }
        try await publishOutgoing()
        while true {
            let batch = await settledSubscription.nextBatch(limit: Self.batchLimit)
            if batch.isEmpty { return }
            for message in batch {
                try await handle(message)
            }
            try await publishOutgoing()
        }
    }

    /// Publishes the positions the messages handled so far produced, in order, in one call to the bus.
    private func publishOutgoing() async throws {
        guard !outgoing.isEmpty else { return }
        let messages = outgoing
        outgoing.removeAll(keepingCapacity: true)
        // Stated again after a reconnect: a broker restarted without its store has lost them, and this service
        // restarted after that would start the device from (0, 0).
        try await context.publishRestated(contentsOf: messages)
        published += messages.count
    }

    /// Handles one message of the subscription; the positions it produces join ``outgoing``. It suspends only to
    /// report a rejected message.
    private func handle(_ message: BusMessage) async throws {
        let started = ContinuousClock.now
        defer { context.metrics.handled(message, since: started) }
        // `+/position` also matches our own error topic (`errors/position`) and our own live position messages:
        // neither is an input, and rejecting them would feed the error topic back to us.
        if !message.retain && message.topic.hasSuffix("/position") { return }
        if message.topic == context.topics.errors(context.service) { return }
        if context.isCleared(message) { return }
        guard let parsed = context.topics.parseDeviceTopic(message.topic) else {
            try await reject(message, "'\(message.topic)' is not a device topic")
            return
        }
        let (device, suffix) = (parsed.device, parsed.topic)
        do {
            try DeviceID.validate(device)
        } catch {
            try await reject(message, error.message)
            return
        }
        /// Runs `change` on the device's state, taken once its message has decoded (a bad or ignored message of a new
        /// device takes no place in the device table and evicts nobody), and keeps the changed state.
        func tracker(_ change: (inout DevicePosition) -> DevicePosition.Outcome) throws(InputError) -> DevicePosition.Outcome {
            var position = try devices.track(device, at: context.clock.now, context: context) {
                DevicePosition(device: device, configuration: configuration, batches: batches)
            }.value
            let outcome = change(&position)
            devices[device] = position
            return outcome
        }
        let outcome: DevicePosition.Outcome
        do {
            switch suffix {
            case .position:
                let retained = try decoder.decode(PositionMessage.self, from: message.payload)
                let state = try PositionState(retained)
                let now = context.clock.date
                let stateTime = retained.timestamp.flatMap(Timestamp.parse)
                outcome = try tracker { $0.restore(from: state, timestamp: now, stateTime: stateTime) }
                if case .reject = outcome {
                } else {
                    context.logger.info(
                        "restored a device from its retained position",
                        metadata: [
                            "device": "\(device)", "position.steps": "\(state.steps)", "position.updates": "\(state.updates)",
                        ])
                }
            case .heading:
                let payload = try decoder.decode(HeadingMessage.self, from: message.payload)
                let date = try Timestamp.date(payload.timestamp, received: context.clock.date)
                // `--heading-source walking`: the walking direction when the compass knows it, else the heading.
                if configuration.headingSource == .walking, let walking = payload.walkingDirection,
                    walking.isFinite, (0...360).contains(walking)
                {
                    let start = settled
                    outcome = try tracker { $0.heading(walking, timestamp: date, start: start) }
                    break
                }
                guard let heading = payload.heading else {
                    if payload.status == nil || payload.status == "ok" {
                        throw InputError("the field 'heading' is missing")
                    }
                    return  // noSensor or noPermission: no heading to use.
                }
                _ = try FieldCheck.finite(heading, "heading", in: 0...360)
                let start = settled
                outcome = try tracker { $0.heading(heading, timestamp: date, start: start) }
            case .steps:
                let payload = try StepsMessage.decode(message.payload, using: decoder)
                let date = try Timestamp.date(payload.timestamp, received: context.clock.date)
                let count = Int(try payload.count())
                let distance = payload.reportedDistance
                outcome = try tracker { $0.steps(count, distance: distance, timestamp: date) }
            case .commandForget:
                // The device's retained position is being cleared (`stepcompass forget` clears it right after this
                // command): not to be published again after a reconnect. A position of this device still waiting in
                // the batch is dropped, since it would land after the clear and bring the position back; the others
                // are published first.
                let forgotten = context.topics.device(device, .position)
                outgoing.removeAll { $0.topic == forgotten }
                try await publishOutgoing()
                context.stopRestating(device: device)
                return
            case .commandResetPosition:
                _ = try DeviceCommand.decode(.commandResetPosition, json: message.payload)
                let now = context.clock.date
                outcome = try tracker { $0.reset(now: now) }
                context.logger.info("position reset", metadata: ["device": "\(device)"])
            default:
                return
            }
        } catch let error as InputError {
            try await reject(message, error.message)
            return
        }
        switch outcome {
        case .publish(let states, let date):
            let topic = context.topics.device(device, .position)
            let timestamp = Timestamp.format(date)
            for state in states {
                let payload: Data
                do {
                    payload = try PositionMessage(timestamp: timestamp, state: state).encoded()
                } catch {
                    // A number JSON cannot carry (a distance overflowed by absurd reported distances): said, not fatal.
                    try await reject(message, "the position it leads to cannot be written as JSON: \(error)")
                    return
                }
                outgoing.append(BusMessage(topic: topic, payload: payload, qos: .atLeastOnce, retain: true))
            }
            if let last = states.last {
                context.logger.debug(
                    "position",
                    metadata: [
                        "device": "\(device)", "position.x": "\(last.x)", "position.y": "\(last.y)",
                        "position.steps": "\(last.steps)", "position.updates": "\(last.updates)",
                    ])
            }
        case .reject(let reason):
            try await reject(message, reason)
        case .nothing:
            break
        }
    }

    /// Reports `message` on the error topic, after publishing the positions of the messages handled before it, so
    /// that reports and positions leave in the order of their messages.
    private func reject(_ message: BusMessage, _ reason: String) async throws {
        try await publishOutgoing()
        await context.errors.reject(message, reason: reason)
    }
}
