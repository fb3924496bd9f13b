import Bus
import Foundation
public import JournalKit
public import JournalStore
import Logging
public import ServiceLifecycle
public import ServiceRuntime

/// The walk journal (`stepcompass-journal`): while a walk is on, the route from GPS fixes (and the dead-reckoned
/// position where there is no good fix), a photo of the place every ``JournalConfiguration/route`` metres along it,
/// never the same photo twice in a walk, kept in a database; GPX export.
///
/// It subscribes to `+/location`, `+/position`, `+/permissions`, `+/steps`, `+/cmd/walk` and `journal/walks` in one
/// subscription, so a device's messages are handled in broker order.
///
/// - **Walks** start and stop with `cmd/walk` (`{"action": "start", "name"?}`, `{"action": "stop"}`), and with
///   ``JournalConfiguration/auto`` at the first steps after a rest and after a rest. A walk that is on when the
///   service stops goes on after a restart (it is in the database).
/// - **Privacy.** Only while a walk is on *and* the device's `location` permission is `authorized` is a point
///   recorded or a photo service asked; the `journal` message says why when not.
/// - **Photos** are looked up by ``PhotoFinder`` in the background, at most ``JournalConfiguration/concurrentLookups``
///   at once and one at a time per walk (so a walk never gets a photo twice). A failed lookup keeps the point
///   `pending` and retries it with backoff (``JournalConfiguration/retry``, at least the server's `Retry-After`).
/// - **`{device}/journal`** (QoS 1, retained) and **`{device}/journal/photo`** (QoS 1) report it.
/// - **`journal/walks`** requests are answered like `activity/history`.
///
/// Bad input is reported on `stepcompass/errors/journal` and dropped; a database that fails is retried with backoff,
/// so nothing received is lost while it is away.
public actor JournalService: Service {
    let configuration: JournalConfiguration
    let store: any JournalStore
    let context: BusServiceContext
    let finder: PhotoFinder
    let decoder = PayloadDecoder()
    var devices: [String: DeviceJournal] = [:]
    /// Photo points waiting for a lookup, per walk, in index order.
    var queue: [String: [WalkPhotoPoint]] = [:]
    /// The device of each walk that is on.
    var walkDevices: [String: String] = [:]
    /// The photos of each walk that is on (never twice in a walk).
    var usedPhotos: [String: Set<String>] = [:]
    /// Walks with a lookup running.
    var inFlight: Set<String> = []
    /// Devices whose `journal` message may have changed since it was last published.
    var changed: Set<String> = []
    let wake = WakeSignal()
    var lastFailureLog: (message: String, at: ContinuousClock.Instant)?
    let metrics: JournalMetrics

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: Route rules, photo services, cache, retry.
    ///   - store: Where walks are kept; migrated at start, closed at the end.
    ///   - finder: The photo lookups.
    ///   - context: The bus, topics, logger and error reporter.
    init(configuration: JournalConfiguration, store: any JournalStore, finder: PhotoFinder, context: BusServiceContext) {
        self.configuration = configuration
        self.store = store
        self.finder = finder
        self.context = context
        self.metrics = JournalMetrics(context.metrics)
    }

    /// Migrates the store, resumes the walks that were on, then handles messages and looks up photos until the group
    /// shuts down; the store is closed at the end.
    public func run() async throws {
        do {
            guard try await context.openDatabase("the journal database", migrate: { [store] in try await store.migrate() }) else {
                try? await store.close()
                return
            }
            try await resumeWalks()
            try await context.serve { try await self.serve() }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    private func serve() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.handleMessages() }
            group.addTask { await self.lookUpPhotos() }
            try await group.next()
            group.cancelAll()
        }
    }

    // MARK: Messages

    private func handleMessages() async throws {
        let topics = context.topics
        let requests =
            try [Topics.DeviceTopic.permissions, .location, .position, .steps, .commandWalk].map {
                SubscriptionRequest(try TopicFilter(topics.allDevices($0)), qos: .atLeastOnce)
            } + [SubscriptionRequest(try TopicFilter(topics.journalWalks), qos: .atLeastOnce)]
        let source = await finder.source
        context.logger.info(
            "subscribing; reading retained permissions",
            metadata: [
                "journal.photoEvery": "\(configuration.route.photoEvery)", "journal.maxAccuracy": "\(configuration.route.maximumAccuracy)",
                "journal.auto": "\(configuration.auto)", "journal.photos": "\(source.rawValue)",
                "journal.walksOn": "\(walkDevices.count)",
            ])
        // The fixes queued for the persistent session while the journal was away come before the retained
        // permissions: they are handled once the permissions are known, not dropped as unauthorized.
        let settled = try await context.subscribeSettled(to: requests, window: configuration.settleWindow) { message in
            await handle(message)
        }
        for message in settled.queued { await handle(message) }
        try await flush()
        try await publishChanged()
        recordGauges()
        // Rests are checked at least this often (--auto).
        let tick = Duration.milliseconds(Int64(min(5, configuration.restSeconds / 4) * 1_000))
        while !Task.isCancelled {
            switch await settled.nextBatch(limit: configuration.maximumBatch, before: context.clock.now.advanced(by: tick)) {
            case .messages(let messages):
                for message in messages { await handle(message) }
            case .timeout:
                break
            case .ended:
                try await flush()
                return
            }
            try await flush()
            try await checkRest()
            try await publishChanged()
            recordGauges()
        }
    }

    private func handle(_ message: BusMessage) async {
        let started = ContinuousClock.now
        defer { context.metrics.handled(message, since: started) }
        do {
            if message.topic == context.topics.journalWalks {
                try await flush()  // the reply includes everything received before the request
                await answerWalks(message)
                return
            }
            guard let (device, topic) = context.topics.parseDeviceTopic(message.topic) else { return }
            try DeviceID.validate(device)
            if context.isCleared(message) {
                // Cleared permissions (`stepcompass forget`) withdraw the authorization.
                if topic == .permissions, devices[device] != nil {
                    devices[device]?.location = nil
                    devices[device]?.lastFix = nil
                    changed.insert(device)
                }
                return
            }
            switch topic {
            case .permissions:
                let input = try decoder.decode(PermissionsMessage.self, from: message.payload)
                if let text = input.location {
                    let location = try SensorPermission.parse(text, field: "location")
                    devices[device, default: newDevice()].location = location
                    if location != .authorized { devices[device]?.lastFix = nil }  // never start a route from it
                    changed.insert(device)
                    wake.signal()  // lookups held for this device may run now
                }
            case .location:
                try await location(try decoder.decode(LocationMessage.self, from: message.payload), device: device)
            case .position:
                try position(try decoder.decode(PositionMessage.self, from: message.payload), device: device)
            case .steps:
                try await steps(try StepsMessage.decode(message.payload, using: decoder), device: device)
            case .commandWalk:
                guard case .walk(let start, let name) = try DeviceCommand.decode(.commandWalk, json: message.payload) else { return }
                if start {
                    try await startWalk(device: device, name: name, at: context.clock.date.timeIntervalSince1970, automatic: false)
                } else {
                    try await stopWalk(device: device, at: context.clock.date.timeIntervalSince1970, automatic: false)
                }
            default:
                return
            }
        } catch let error as InputError {
            await context.errors.reject(message, reason: error.message)
        } catch is CancellationError {
            return
        } catch {
            await context.errors.reject(message, reason: "\(error)")
        }
    }

    func newDevice() -> DeviceJournal {
        DeviceJournal(settings: configuration.route, rest: configuration.restSeconds)
    }

    private func location(_ input: LocationMessage, device: String) async throws {
        let coordinate = GeoCoordinate(latitude: input.latitude, longitude: input.longitude)
        guard coordinate.isValid else {
            throw InputError("'latitude' and 'longitude' must be degrees in [-90, 90] and [-180, 180]")
        }
        if let altitude = input.altitude { _ = try FieldCheck.finite(altitude, "altitude", in: FieldCheck.altitudes) }
        let time = try Timestamp.date(input.timestamp).timeIntervalSince1970
        var state = devices[device] ?? newDevice()
        if let accuracy = input.horizontalAccuracy, !(accuracy >= 0 && accuracy <= configuration.route.maximumAccuracy) {
            // A poor fix is normal (indoors, a cold start): not an error, and not part of the route.
        } else if state.location == .authorized {
            state.lastFix = .init(coordinate: coordinate, altitude: input.altitude, accuracy: input.horizontalAccuracy, time: time)
        }
        if state.recording {
            let update = state.tracker.fix(coordinate, altitude: input.altitude, horizontalAccuracy: input.horizontalAccuracy, time: time)
            state.pendingRoute += update.points
            state.pendingPoints += update.photoPoints
        }
        devices[device] = state
    }

    private func position(_ input: PositionMessage, device: String) throws(InputError) {
        let time = try Timestamp.date(input.timestamp).timeIntervalSince1970
        guard var state = devices[device], state.recording, input.x.isFinite, input.y.isFinite else { return }
        let update = state.tracker.deadReckoned(north: input.x, east: input.y, time: time)
        state.pendingRoute += update.points
        state.pendingPoints += update.photoPoints
        devices[device] = state
    }

    private func steps(_ input: StepsMessage, device: String) async throws {
        let count = try input.count()
        _ = try Timestamp.date(input.timestamp)  // a malformed timestamp is reported, whatever the count
        var state = devices[device] ?? newDevice()
        // The first count seen is a baseline (after a restart, a resting phone's unchanged total is not a step).
        let moved = state.lastCount.map { count > $0 } ?? false
        state.lastCount = count
        guard moved, configuration.auto else {
            devices[device] = state
            return
        }
        // Rest is real time: the receive time, on the same clock as the rest check (a simulator's or a replay's
        // timestamps may be hours away from it).
        let decision = state.auto.stepped(at: context.clock.date.timeIntervalSince1970, walking: state.walk != nil)
        devices[device] = state
        if case .start(let at) = decision {
            try await startWalk(device: device, name: nil, at: at, automatic: true)
        }
    }

    /// Stops the walks whose device has rested long enough (`--auto`).
    private func checkRest() async throws {
        guard configuration.auto else { return }
        let now = context.clock.date.timeIntervalSince1970
        for (device, state) in devices {
            guard let walk = state.walk else { continue }
            if case .stop(let at) = state.auto.check(now: now, walkStarted: walk.started) {
                try await stopWalk(device: device, at: at, automatic: true)
            }
        }
    }

    // MARK: Walks

    func startWalk(device: String, name: String?, at time: Double, automatic: Bool) async throws {
        var state = devices[device] ?? newDevice()
        if let walk = state.walk {
            context.logger.info("a walk is already on", metadata: ["device": "\(device)", "journal.walk": "\(walk.id)"])
            devices[device] = state
            return
        }
        var walk = Walk(id: UUID().uuidString.lowercased(), device: device, name: name, started: time)
        do {
            let new = walk
            try await retrying("start a walk") { try await self.store.startWalk(new) }
        } catch let error as JournalStoreError {
            // Another journal instance started one: take it over.
            guard case .walkActive = error, let active = try await store.activeWalk(device: device) else { throw error }
            walk = active
        }
        state.walk = walk
        changed.insert(device)
        state.tracker = RouteTracker(settings: configuration.route)
        state.pendingRoute = []
        state.pendingPoints = []
        walkDevices[walk.id] = device
        usedPhotos[walk.id] = []
        // Start from where the walker is when the last good fix is recent.
        if state.recording, let fix = state.lastFix, time - fix.time <= 60 {
            let update = state.tracker.fix(fix.coordinate, altitude: fix.altitude, horizontalAccuracy: fix.accuracy, time: fix.time)
            state.pendingRoute += update.points
        }
        devices[device] = state
        context.logger.info(
            automatic ? "walk started after a rest (--auto)" : "walk started",
            metadata: [
                "device": "\(device)", "journal.walk": "\(walk.id)", "journal.name": "\(name ?? "")",
                "journal.recording": "\(state.recording)",
            ])
    }

    func stopWalk(device: String, at time: Double, automatic: Bool) async throws {
        guard let walk = devices[device]?.walk else {
            context.logger.info("no walk is on to stop", metadata: ["device": "\(device)"])
            return
        }
        try await flush()
        let stopped = try await retrying("stop a walk") { try await self.store.stopWalk(id: walk.id, at: max(time, walk.started)) }
        devices[device]?.walk = nil
        changed.insert(device)
        walkDevices[walk.id] = nil
        usedPhotos[walk.id] = nil
        let dropped = queue.removeValue(forKey: walk.id)?.count ?? 0
        context.logger.info(
            automatic ? "walk stopped after a rest (--auto)" : "walk stopped",
            metadata: [
                "device": "\(device)", "journal.walk": "\(walk.id)", "journal.distance": "\(Int(stopped?.distance ?? walk.distance))",
                "journal.photos": "\(stopped?.photos ?? walk.photos)", "journal.pointsWithoutPhoto": "\(dropped)",
            ])
    }

    /// The walks that were on when the service stopped go on: their route resumes from the last stored point.
    private func resumeWalks() async throws {
        let walks = try await retrying("read the walks that are on") { try await self.store.activeWalks() }
        for walk in walks {
            let last = try await store.lastRoutePoint(walk: walk.id)
            var state = devices[walk.device] ?? newDevice()
            state.walk = walk
            changed.insert(walk.device)
            state.tracker = RouteTracker(settings: configuration.route, resuming: last, photoPointsReached: walk.points)
            // The rest (--auto) counts from the restart, not from the walk's start.
            _ = state.auto.stepped(at: context.clock.date.timeIntervalSince1970, walking: true)
            devices[walk.device] = state
            walkDevices[walk.id] = walk.device
            let points = try await store.photoPoints(walk: walk.id)
            usedPhotos[walk.id] = Set(points.compactMap { $0.status == .found ? $0.photo?.id : nil })
            let pending = points.filter { $0.status == .pending }
            if !pending.isEmpty { queue[walk.id] = Self.queueOrder(pending) }
        }
        if !walks.isEmpty {
            context.logger.info("resumed the walks that were on", metadata: ["journal.walks": "\(walks.count)"])
        }
    }

    // MARK: Writing and publishing

    /// Writes the route points and photo points received, and queues the new photo points for a lookup.
    func flush() async throws {
        for (device, state) in devices where !state.pendingRoute.isEmpty || !state.pendingPoints.isEmpty {
            guard let walk = state.walk else {
                devices[device]?.pendingRoute = []
                devices[device]?.pendingPoints = []
                continue
            }
            let route = state.pendingRoute
            let points = state.pendingPoints
            let id = walk.id
            try await retrying("store a walk's route") { try await self.store.record(walk: id, route: route, photoPoints: points) }
            // Only the fields this write owns: a lookup that ended during the await may have counted a photo.
            devices[device]?.walk?.distance = state.tracker.distance
            devices[device]?.walk?.routePoints += route.count
            devices[device]?.walk?.points = state.tracker.photoPointsReached
            changed.insert(device)
            devices[device]?.pendingRoute = []
            devices[device]?.pendingPoints = []
            if !points.isEmpty {
                queue[walk.id] = Self.queueOrder((queue[walk.id] ?? []) + points.map { WalkPhotoPoint(walk: walk.id, point: $0) })
                wake.signal()
            }
        }
    }

    /// Publishes the `journal` of every device whose walk changed (its distance by 10 m or more).
    func publishChanged() async throws {
        let now = Timestamp.format(context.clock.date)
        for device in changed {
            changed.remove(device)
            guard let state = devices[device] else { continue }
            let payload = JournalMessage(
                timestamp: now, walk: state.walk.map(JournalWalk.init), recording: state.recording, reason: state.pausedReason)
            if let last = state.published {
                if last.sameContent(as: payload) { continue }
                if let old = last.walk, let new = payload.walk, old.id == new.id, old.points == new.points, old.photos == new.photos,
                    abs((old.distance ?? 0) - (new.distance ?? 0)) < 10, last.recording == payload.recording, last.reason == payload.reason
                {
                    continue
                }
            } else if state.walk == nil {
                continue  // nothing to say of a device that never walked
            }
            let data = try JSONEncoder.journal.encode(payload)
            try await context.bus.publish(BusMessage(topic: context.topics.device(device, .journal), payload: data, qos: .atLeastOnce, retain: true))
            devices[device]?.published = payload
        }
    }

    /// Runs a database operation until it succeeds, with backoff (the database may be restarting); a
    /// ``JournalStoreError`` (a walk already on, an unknown walk) is thrown at once.
    func retrying<T>(_ what: String, _ operation: () async throws -> T) async throws -> T {
        try await context.retrying(what, isPermanent: { $0 is JournalStoreError }, operation)
    }
}
