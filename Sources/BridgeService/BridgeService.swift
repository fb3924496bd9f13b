import Bus
import Foundation
import Logging
import PhoneFormats
public import ServiceLifecycle
import ServiceRuntime

/// The phone bridge's bus side (`stepcompass-bridge`): Sensor Logger's MQTT push (the app publishes its push body
/// over WebSockets to `--sensor-logger-topic`), OwnTracks locations (`owntracks/USER/DEVICE`), and the step
/// detector, which reads every device's `imu` and `steps`.
///
/// It says `online` once its subscription is acknowledged and, when the HTTP push is on, the port is open.
/// Nothing a phone sends can stop it: a bad body is reported on `stepcompass/errors/bridge` and dropped.
public struct BridgeService: Service {
    private let configuration: BridgeConfiguration
    private let context: BusServiceContext
    let ingest: PhoneIngest
    let steps: StepCounter
    private let listening: AsyncStream<Int>?
    private let onListening: @Sendable (Int) async -> Void
    private let decoder = PayloadDecoder()
    private let sensorLoggerFilter: TopicFilter?
    private let ownTracksFilter: TopicFilter?

    init(
        configuration: BridgeConfiguration, context: BusServiceContext, ingest: PhoneIngest, steps: StepCounter,
        listening: AsyncStream<Int>?, onListening: @escaping @Sendable (Int) async -> Void
    ) {
        self.configuration = configuration
        self.context = context
        self.ingest = ingest
        self.steps = steps
        self.listening = listening
        self.onListening = onListening
        self.sensorLoggerFilter = configuration.sensorLoggerTopic.isEmpty ? nil : try? TopicFilter(configuration.sensorLoggerTopic)
        self.ownTracksFilter = configuration.ownTracksTopic.isEmpty ? nil : try? TopicFilter(configuration.ownTracksTopic)
    }

    public func run() async throws {
        try await context.serve { try await self.serve() }
    }

    private func serve() async throws {
        var phoneRequests: [SubscriptionRequest] = []
        if !configuration.sensorLoggerTopic.isEmpty {
            phoneRequests.append(SubscriptionRequest(try TopicFilter(configuration.sensorLoggerTopic), qos: .atMostOnce))
        }
        if !configuration.ownTracksTopic.isEmpty {
            phoneRequests.append(SubscriptionRequest(try TopicFilter(configuration.ownTracksTopic), qos: .atLeastOnce))
        }
        var detectorRequests: [SubscriptionRequest] = []
        if configuration.detectSteps {
            detectorRequests.append(SubscriptionRequest(try TopicFilter(context.topics.allDevices(.imu)), qos: .atMostOnce))
            detectorRequests.append(SubscriptionRequest(try TopicFilter(context.topics.allDevices(.steps)), qos: .atLeastOnce))
        }
        // Two subscriptions: the phones' pushes (a Sensor Logger body can hold thousands of samples) are handled on
        // Swift's shared threads, the detector's samples on the bus's own thread (below).
        let phones = phoneRequests.isEmpty ? nil : try await context.bus.subscribe(to: phoneRequests)
        let samples = detectorRequests.isEmpty ? nil : try await context.bus.subscribe(to: detectorRequests)
        context.logger.info(
            "subscribed",
            metadata: [
                "filters": "\((phoneRequests + detectorRequests).map(\.filter.description).joined(separator: " "))",
                "bridge.detectSteps": "\(configuration.detectSteps)",
            ])
        if let listening {
            var ports = listening.makeAsyncIterator()
            guard let port = await ports.next() else { return }
            context.logger.info(
                "Sensor Logger HTTP push listening",
                metadata: [
                    "url": "http://\(configuration.effectiveHTTPHost):\(port)/sensor-logger",
                    "bridge.auth": "\(configuration.hasTokens ? "token required" : "none (loopback only)")",
                ])
            try await context.ready()
            await onListening(port)
        } else {
            try await context.ready()
        }
        let ingest = self.ingest
        let idle = max(Duration.seconds(configuration.reorderDelay), .milliseconds(200))
        // A device whose samples stopped 3-3.5 s ago has its held step judged (a walk ends after 2.5 s without a step
        // anyway, when the samples go on).
        let silentRounds = UInt64((Self.silence / Self.silenceRound).rounded(.up)) + 1
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A phone that stops sending leaves up to a reorder delay of samples in its buffer.
                while !Task.isCancelled {
                    try await Task.sleep(for: idle)
                    await ingest.flushIdle(after: idle)
                }
            }
            if configuration.detectSteps {
                // A phone that stops sending leaves the last step of its walk held for confirmation. On the bus's
                // thread, as the samples: a device's counts are published from one thread, in order.
                group.addTask(executorPreference: context.bus.taskExecutor) {
                    while !Task.isCancelled {
                        try await Task.sleep(for: Self.silenceRound)
                        for message in steps.finishSilent(rounds: silentRounds) { await publishDetected(message) }
                    }
                }
            }
            if let phones {
                group.addTask { await self.drain(phones) }
            }
            if let samples {
                // On the bus's own thread where it has one (as the compass): a sample is read, detected and its
                // steps written without a thread switch (at 700 devices × 100 Hz `perf` counted a fifth of the
                // bridge's CPU in switching and waking threads; a sample costs 10.0 µs before, 8.5-9.7 after). Each
                // sample changes its device's detector (a few hundred bytes) in memory, under a lock held only for
                // that, or for one pass over the walking devices every 0.5 s (`finishSilent`).
                group.addTask(executorPreference: context.bus.taskExecutor) { await self.drain(samples) }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Handles `subscription`'s messages, a batch at a time, until it ends.
    private func drain(_ subscription: BusSubscription) async {
        while true {
            let batch = await subscription.nextBatch()
            if batch.isEmpty { break }
            for message in batch { await handle(message) }
        }
    }

    private func handle(_ message: BusMessage) async {
        let started = ContinuousClock.now
        defer { context.metrics.handled(message, since: started) }
        let topics = context.topics
        if let (device, topic) = topics.parseDeviceTopic(message.topic) {
            switch topic {
            case .imu: await detect(device: device, message)
            case .steps: await pedometer(device: device, message)
            default: break
            }
            return
        }
        if sensorLoggerFilter?.matches(message.topic) == true {
            await sensorLogger(message)
        } else if ownTracksFilter?.matches(message.topic) == true {
            await ownTracks(message)
        }
    }

    private func sensorLogger(_ message: BusMessage) async {
        do {
            let body = try SensorLoggerMessage.decode(message.payload, limits: .init(maximumBytes: configuration.maxBody))
            let device = DeviceID.sanitized(body.deviceId ?? "sensor-logger")
            _ = try await ingest.sensorLogger(device: device, body)
            ingest.metrics?.batch(.sensorLoggerMQTT)
        } catch let error as PhoneFormatError {
            await context.errors.reject(message, reason: error.reason)
        } catch {
            context.logger.warning("could not publish a phone's samples", metadata: ["error": "\(error)"])
        }
    }

    private func ownTracks(_ message: BusMessage) async {
        guard let device = OwnTracksMessage.deviceID(topic: message.topic) else {
            await context.errors.reject(message, reason: "'\(message.topic)' is not owntracks/USER/DEVICE")
            return
        }
        do {
            guard let fix = try OwnTracksMessage.decode(message.payload) else { return }
            try await ingest.location(device: device, fix)
            ingest.metrics?.batch(.ownTracks)
        } catch let error as PhoneFormatError {
            await context.errors.reject(message, reason: error.reason)
        } catch {
            context.logger.warning("could not publish an OwnTracks location", metadata: ["error": "\(error)"])
        }
    }

    private func detect(device: String, _ message: BusMessage) async {
        // Inputs of other publishers are checked by the services that use them (the compass reports bad IMU
        // samples); the detector skips what it cannot use, without a second report.
        guard DeviceID.isValid(device), let payload = try? IMUPayload.decode(message.payload, using: decoder),
            (try? payload.validate()) != nil
        else { return }
        let time = payload.timestamp.flatMap(Timestamp.parse)?.timeIntervalSince1970 ?? Date().timeIntervalSince1970
        let acceleration = payload.accel
        guard let message = steps.sample(device: device, time: time, acceleration: acceleration) else { return }
        await publishDetected(message)
    }

    /// How long a device's samples must have stopped for the step its detector holds to be judged without a next one.
    static let silence = Duration.seconds(3)
    /// How often silent devices are looked for.
    static let silenceRound = Duration.milliseconds(500)

    private func publishDetected(_ message: BusMessage) async {
        do {
            try await context.bus.publish(message)
        } catch {
            context.logger.warning("could not publish detected steps", metadata: ["topic": "\(message.topic)", "error": "\(error)"])
        }
    }

    private func pedometer(device: String, _ message: BusMessage) async {
        guard let payload = try? StepsMessage.decode(message.payload, using: decoder), payload.wholeSteps != nil,
            payload.source != "detector"
        else { return }
        steps.pedometerSeen(device: device)
    }
}
