public import ActivityKit
public import ActivityStore
import Bus
import Foundation
import Logging
import Metrics
public import ServiceLifecycle
public import ServiceRuntime

/// The activity service (`stepcompass-activity`): each device's step history in a database, its week, and the
/// music that fits it.
///
/// It subscribes to `+/steps`, `+/permissions`, `activity/history` and its own sync topic in **one** subscription,
/// so a device's messages are handled in broker order whatever their topics.
///
/// - **Steps.** Each message's cumulative count becomes a ``ActivityStore/StepRecord`` with the minute, hour and day
///   of its `timestamp` (its receive time when absent) in the device's time zone. The records of all the messages
///   at hand (up to ``ActivityConfiguration/maximumBatch``) are written in one transaction
///   (``ActivityStore/ActivityStore/apply(_:)``), which runs them through the devices' persisted tallies, so a restart,
///   a broker restart or a redelivered message never counts a step twice.
/// - **Permissions** (retained) give `motion`, and optionally `timeZone`, the device's IANA time zone for its hours and
///   days (the service's `--time-zone` otherwise). Right after subscribing the service waits for a sync marker of its
///   own, as the position service does, so the retained permissions of every device are known before the step
///   messages queued for its session are bucketed.
/// - **`{device}/activity`** (QoS 1, retained) is published when it changes, at most once per
///   ``ActivityConfiguration/publishInterval`` per device (a change held back goes out when the interval ends).
/// - **`activity/history`** is answered like `markers/nearest`: to the MQTT 5 response topic with its correlation
///   data, or to the payload's `replyTo` with its `correlationId`.
///
/// - **Many devices.** At most ``ActivityConfiguration/maxDevices`` devices are kept in memory (`--max-devices`,
///   ``ServiceRuntime/DeviceTable``). When full, a new device takes the place of the device idle the longest if that
///   one has been idle a minute (on the service's clock); otherwise the new device's messages are rejected on the
///   error topic until one goes idle. Eviction forgets only the in-memory state: the step tallies are the store's,
///   so an evicted device's next steps still count once on top of its stored total, and its week is read back from
///   the store. What it forgets is what came from its retained `permissions` (its time zone and motion permission,
///   read only while the service settles): until the device sends `permissions` again its steps are bucketed in the
///   service's `--time-zone`.
///
/// Bad input is reported on `stepcompass/errors/activity` and dropped.
public actor ActivityService: Service {
    let configuration: ActivityConfiguration
    let catalogue: PlaylistCatalogue
    let store: any ActivityStore
    let context: BusServiceContext
    let decoder = PayloadDecoder()
    var devices: DeviceTable<DeviceActivity>
    var pending: [StepRecord] = []
    var dirty: Set<String> = []
    /// Devices last published walking (cadence above 0), with when their cadence window ends if no step comes.
    var cadenceEnds: [String: ServiceClock.Instant] = [:]
    private var nextRetention: ServiceClock.Instant
    /// `stepcompass_activity_write_seconds`: the time a batch of steps takes to write.
    private let writeSeconds: Metrics.Timer

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: Time zone, retention, publish interval, batch size.
    ///   - catalogue: The playlists and the thresholds that pick one.
    ///   - store: Where the history is kept; the service migrates it at start and closes it when it stops.
    ///   - context: The bus, topics, logger and error reporter.
    public init(configuration: ActivityConfiguration, catalogue: PlaylistCatalogue, store: any ActivityStore, context: BusServiceContext) {
        self.configuration = configuration
        self.catalogue = catalogue
        self.store = store
        self.context = context
        self.writeSeconds = context.metrics.timer("stepcompass_activity_write_seconds")
        self.nextRetention = context.clock.now
        self.devices = DeviceTable(capacity: max(1, configuration.maxDevices))
    }

    /// Migrates the store, waits for the bus, subscribes, says ready, then handles messages until the group shuts
    /// down; the store is closed at the end.
    public func run() async throws {
        do {
            guard try await context.openDatabase("the activity database", migrate: { [store] in try await store.migrate() }) else {
                try? await store.close()
                return
            }
            try await context.serve { try await self.serve() }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// `stepcompass/{device}/activity`.
    func activityTopic(_ device: String) -> String { context.topics.device(device, .activity) }
    /// `stepcompass/activity/history`.
    var historyTopic: String { context.topics.activityHistory }

    private func serve() async throws {
        let topics = context.topics
        let requests =
            try [Topics.DeviceTopic.steps, .permissions].map {
                SubscriptionRequest(try TopicFilter(topics.allDevices($0)), qos: .atLeastOnce)
            } + [SubscriptionRequest(try TopicFilter(historyTopic), qos: .atLeastOnce)]
        context.logger.info(
            "subscribing; reading retained permissions",
            metadata: [
                "activity.timeZone": "\(configuration.timeZone)",
                "activity.retainMinutesDays": "\(configuration.retainMinutesDays)",
            ])
        let settled = try await context.subscribeSettled(to: requests, window: configuration.settleWindow) { message in
            try await handle([message])
        }
        let buffered = settled.queued
        try await handle(buffered)
        try await publishDue()

        while !Task.isCancelled {
            switch await settled.nextBatch(limit: configuration.maximumBatch, before: nextDeadline()) {
            case .messages(let messages):
                try await handle(messages)
            case .timeout:
                break
            case .ended:
                try await flush()
                return
            }
            try await publishDue()
            await retainIfDue()
        }
        try await flush()
    }

    /// Handles messages in order, then writes the steps among them.
    private func handle(_ messages: [BusMessage]) async throws {
        for message in messages {
            let started = ContinuousClock.now
            defer { context.metrics.handled(message, since: started) }
            if message.topic == historyTopic {
                try await flush()  // the reply includes every step received before the request
                await answerHistory(message)
                continue
            }
            await handleDeviceMessage(message)
            if pending.count >= configuration.maximumBatch { try await flush() }
        }
        try await flush()
    }

    private func handleDeviceMessage(_ message: BusMessage) async {
        if context.isCleared(message) { return }
        guard let parsed = context.topics.parseDeviceTopic(message.topic) else {
            await context.errors.reject(message, reason: "'\(message.topic)' is not a device topic")
            return
        }
        let device = parsed.device
        do {
            try DeviceID.validate(device)
            switch parsed.topic {
            case .steps:
                let input = try StepsMessage.decode(message.payload, using: decoder)
                let count = try input.count()
                let date = try Timestamp.date(input.timestamp, received: context.clock.date)
                let state = try trackedState(device)
                devices[device]?.lastReceived = context.clock.now
                let time = date.timeIntervalSince1970
                pending.append(StepRecord(device: device, count: count, time: time, buckets: state.calendar.buckets(of: date)))
            case .permissions:
                let input = try decoder.decode(PermissionsMessage.self, from: message.payload)
                try await applyPermissions(input, device: device, message: message)
            default:
                return
            }
        } catch let error as InputError {
            await context.errors.reject(message, reason: error.message)
        } catch {
            await context.errors.reject(message, reason: "\(error)")
        }
    }

    private func applyPermissions(_ input: PermissionsMessage, device: String, message: BusMessage) async throws {
        // Hours and days already bucketed keep the zone of the moment they were written: flush those first, before
        // taking the device's state, which the flush updates (its week, cadence and last step time: a copy taken
        // before it, written back after, lost the steps received just before the permissions).
        try await flush()
        var state = try trackedState(device)
        if let motion = input.motion {
            guard let authorization = MotionAuthorization(rawValue: motion) else {
                throw InputError("'motion' is '\(motion.prefix(40))'; expected authorized, denied, notDetermined, restricted or unavailable")
            }
            state.authorization = authorization
        }
        if let zone = input.timeZone {
            if let calendar = ActivityCalendar(identifier: zone) {
                if state.ownTimeZone != zone {
                    state.ownTimeZone = zone
                    state.calendar = calendar
                    state.days = nil  // reloaded in the new zone's days
                }
            } else {
                // The motion permission still applies; only the zone is refused.
                await context.errors.reject(message, reason: "'timeZone' is '\(zone.prefix(60))', not an IANA time zone such as Europe/Berlin")
            }
        }
        devices[device] = state
        dirty.insert(device)
    }

    /// The device's state, created at its first message (evicting the device idle the longest when the table is
    /// full); a use of the device.
    /// - Throws: `InputError` when the table is full and no device has been idle long enough.
    func trackedState(_ device: String) throws(InputError) -> DeviceActivity {
        let tracked = try devices.track(device, at: context.clock.now, context: context) {
            DeviceActivity(calendar: configuration.calendar, cadenceWindow: configuration.cadenceWindow)
        }
        if let evicted = tracked.evicted {
            // Idle a minute: its last activity went out long ago (an interval is a second); a cadence window still
            // open (the default window is a minute too) ends with it, its retained activity keeping the last cadence.
            dirty.remove(evicted)
            cadenceEnds[evicted] = nil
        }
        return tracked.value
    }

    /// Writes the pending steps (retrying while the database is unreachable) and updates the devices' weeks.
    func flush() async throws {
        while !pending.isEmpty {
            let batch = Array(pending.prefix(configuration.maximumBatch))
            let applied = try await applyRetrying(batch)
            pending.removeFirst(batch.count)
            for step in applied {
                let device = step.record.device
                // Tracked since its message was received (a device in use is never evicted).
                guard var state = devices[device] else { continue }
                if state.days != nil, step.change.delta > 0 {
                    state.days?[step.record.buckets.day, default: 0] += step.change.delta
                }
                state.cadence.record(
                    delta: step.change.delta, at: step.record.time,
                    continuesSession: step.change.continuesSession && step.tally.total != step.change.delta)
                state.lastTime = max(state.lastTime ?? step.record.time, step.record.time)
                devices[device] = state
                dirty.insert(device)
            }
        }
    }

    private func applyRetrying(_ batch: [StepRecord]) async throws -> [AppliedStep] {
        try await context.retrying("store a batch of \(batch.count) steps") {
            let started = ContinuousClock.now
            let applied = try await store.apply(batch)
            writeSeconds.record(duration: ContinuousClock.now - started)
            return applied
        }
    }

    /// The earliest moment a held `activity` message or the retention falls due.
    private func nextDeadline() -> ServiceClock.Instant {
        var deadline = nextRetention
        for end in cadenceEnds.values { deadline = min(deadline, end) }
        for device in dirty {
            guard let last = devices[device]?.lastPublished else { return context.clock.now }
            deadline = min(deadline, last.advanced(by: configuration.publishInterval))
        }
        return deadline
    }

    /// Publishes the `activity` of every changed device whose interval has passed.
    private func publishDue() async throws {
        let now = context.clock.now
        for (device, end) in cadenceEnds where end <= now {
            // A walking device sent no steps for a cadence window: its activity goes out again, with a cadence of 0.
            cadenceEnds[device] = nil
            dirty.insert(device)
        }
        for device in dirty {
            if let last = devices[device]?.lastPublished, now < last.advanced(by: configuration.publishInterval) { continue }
            dirty.remove(device)
            try await publishActivity(device, now: now)
        }
    }

    private func publishActivity(_ device: String, now: ServiceClock.Instant) async throws {
        guard var state = devices[device] else {
            cadenceEnds[device] = nil
            return
        }
        let time = state.lastTime ?? context.clock.date.timeIntervalSince1970
        let date = Date(timeIntervalSince1970: time)
        let dayStarts = state.calendar.dayStarts(endingWith: date, count: 7)
        if state.days == nil, let first = dayStarts.first, let last = dayStarts.last {
            do {
                // A day stored under another zone (the device said its time zone after its first steps) counts for
                // the day of this zone that contains its start, so nothing stored drops out of the week.
                let buckets = try await store.history(
                    device: device, from: first - 86_400, to: last + 2 * 86_400, granularity: .day)
                let calendar = state.calendar
                state.days = Dictionary(
                    buckets.map { (calendar.dayStart(of: Date(timeIntervalSince1970: TimeInterval($0.start))), $0.steps) },
                    uniquingKeysWith: +)
            } catch {
                context.logger.warning("could not read a device's days; trying again later", metadata: ["device": "\(device)", "error": "\(error)"])
                dirty.insert(device)
                return
            }
        }
        let days = state.days ?? [:]
        state.days = days.filter { $0.key >= (dayStarts.first ?? 0) - 86_400 }
        let week = WeekSummary(dayStarts: dayStarts, steps: days)
        let cadence = state.currentCadence(now: now)
        let authorization = state.authorization
        var suggestion: ActivityMessage.Suggestion?
        if authorization == nil || authorization == .authorized,
            let picked = state.chooser.suggest(week: week, cadence: cadence, catalogue: catalogue)
        {
            let playlist = picked.playlist
            suggestion = .init(
                playlist: .init(
                    id: playlist.id, name: playlist.name, description: playlist.description,
                    tempo: playlist.tempo, link: playlist.link),
                reason: picked.reason)
        }
        let payload = ActivityMessage(
            timestamp: Timestamp.format(date), today: week.today, days: week.days, weekTotal: week.weekTotal,
            dailyMean: week.dailyMean, band: week.band.rawValue, cadence: cadence,
            authorization: authorization?.rawValue ?? "unknown",
            timeZone: state.calendar.identifier, suggestion: suggestion, guidance: authorization?.guidance)
        let changed = state.lastPayload.map { !$0.sameContent(as: payload) } ?? true
        if changed {
            let data = try JSONEncoder.activity.encode(payload)
            try await context.bus.publish(BusMessage(topic: activityTopic(device), payload: data, qos: .atLeastOnce, retain: true))
            state.lastPayload = payload
            state.lastPublished = now
        }
        if cadence > 0, let received = state.lastReceived {
            cadenceEnds[device] = max(received.advanced(by: configuration.cadenceWindow), now).advanced(by: .milliseconds(10))
        } else {
            cadenceEnds[device] = nil
        }
        devices[device] = state
    }

    /// Deletes minute buckets older than the retention, at start and then every hour.
    private func retainIfDue() async {
        guard context.clock.now >= nextRetention else { return }
        nextRetention = context.clock.now.advanced(by: .seconds(3_600))
        let cutoff = Int64(context.clock.date.timeIntervalSince1970) - Int64(configuration.retainMinutesDays) * 86_400
        do {
            let deleted = try await store.deleteMinutes(before: cutoff)
            context.logger.info(
                "deleted minute buckets past the retention",
                metadata: [
                    "activity.deleted": "\(deleted)", "activity.retainMinutesDays": "\(configuration.retainMinutesDays)",
                ])
        } catch {
            context.logger.warning("could not delete old minute buckets", metadata: ["error": "\(error)"])
        }
    }

}

extension ActivityMessage {
    /// Equal but for the timestamp.
    func sameContent(as other: ActivityMessage) -> Bool {
        today == other.today && days == other.days && cadence == other.cadence && authorization == other.authorization
            && timeZone == other.timeZone && suggestion == other.suggestion && guidance == other.guidance
    }
}

extension JSONEncoder {
    static let activity: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
