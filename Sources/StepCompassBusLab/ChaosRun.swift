import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import StepCompassClient
import StepCompassContract
import Synchronization
import WalkerSimulation

/// One walk of the chaos driver: the stack started, every device's journal walk started, the walker fleet run to its
/// end while the plan's faults (if any) are injected, then, once every service is back and the bus is quiet, what the
/// stack left behind read back as a user would (``ChaosOutcome``).
struct ChaosRun {
    let label: String
    let devices: Int
    let speed: Double
    /// Simulated seconds of walking.
    let duration: Double
    let walkSeed: UInt64
    let course: Double
    let imuRate: Double
    let plan: ChaosPlan?
    let executables: URL
    let folder: URL

    /// The services the driver may kill (every long-running one but the walker).
    static let services = ["compass", "position", "activity", "journal", "bridge", "markers", "dashboard"]
    static let topics = Topics()
    var deviceIDs: [String] { (1...devices).map { "walker-\($0)" } }

    /// What the observer has seen: the services' states and every device's last step count and position.
    final class Seen: Sendable {
        let states = Mutex<[String: String]>([:])
        let steps = Mutex<[String: Int]>([:])
        let positionSteps = Mutex<[String: Int]>([:])

        /// The services not online, with their last state.
        func offline() -> [String] {
            let states = states.withLock { $0 }
            return ChaosRun.services.filter { states[$0] != "online" }.map { "\($0) \(states[$0] ?? "unknown")" }
        }
    }

    func run(progress: (String) -> Void) async throws -> (ChaosOutcome, [String]) {
        let base = Mutex("")
        let photos = try await TestHTTPServer.start { request, _ in LocalPhotoAPI(baseURL: base.withLock { $0 }).reply(to: request.path) }
        base.withLock { $0 = photos.baseURL }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let markers = folder.appendingPathComponent("markers.geojson")
        try Data(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Start"},"geometry":{"type":"Point","coordinates":[11.5918,48.1527]}}]}"#
                .utf8
        ).write(to: markers)
        let services = [
            ChaosStack.Service(name: "compass", arguments: []),
            ChaosStack.Service(name: "position", arguments: []),
            ChaosStack.Service(name: "activity", arguments: ["--data-dir", folder.appendingPathComponent("activity").path]),
            ChaosStack.Service(
                name: "journal",
                arguments: [
                    "--data-dir", folder.appendingPathComponent("journal").path, "--cache-dir", folder.appendingPathComponent("photos").path,
                    "--wikimedia-url", photos.baseURL + "/w/api.php", "--photo-every", "100",
                ]),
            ChaosStack.Service(
                name: "bridge", arguments: ["--http-host", "127.0.0.1", "--http-port", "\(try MosquittoBrokerProcess.freePort())"]),
            ChaosStack.Service(
                name: "markers", arguments: ["--source", markers.path, "--cache-dir", folder.appendingPathComponent("markers-cache").path]),
            ChaosStack.Service(name: "dashboard", arguments: ["--http-port", "\(try MosquittoBrokerProcess.freePort())"]),
            ChaosStack.Service(
                name: "sensors",
                arguments: [
                    "--devices", "\(devices)", "--speed", "\(speed)", "--duration", "\(duration)", "--seed", "\(walkSeed)",
                    "--course", "\(course)", "--imu-rate", "\(imuRate)", "--exact-sensors",
                ]),
        ]
        let stack = try await ChaosStack(label: label, executables: executables, folder: folder, services: services)
        do {
            let outcome = try await run(stack, progress: progress)
            await photos.shutdown()
            return (outcome, await stack.events)
        } catch {
            await stack.killAll()
            await photos.shutdown()
            throw Failure(description: "\(error)\nevents:\n\(await stack.events.joined(separator: "\n"))")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private func run(_ stack: ChaosStack, progress: (String) -> Void) async throws -> ChaosOutcome {
        let port = stack.broker.port
        let observer = try await Self.client(port: port, id: "chaos-observer-\(label)")
        let seen = Seen()
        let watching = try await watch(observer, seen: seen)
        defer { watching.cancel() }

        for service in Self.services { try await stack.start(service) }
        try await waitUntil(
            "every service online", timeout: .seconds(60), stack: stack,
            missing: { seen.offline().joined(separator: ", ") }, until: { seen.offline().isEmpty })
        try await startJournalWalks(observer)
        progress("\(label): \(Self.services.count) services online, \(devices) journal walks started; walking \(duration) s at \(speed)x")

        let walkStart = ContinuousClock.now
        try await stack.start("sensors")
        let faults = Task { [plan] in
            guard let plan else { return }
            await withTaskGroup(of: Void.self) { group in
                for event in plan.events {
                    group.addTask { await Self.inject(event, into: stack, from: walkStart) }
                }
            }
        }
        let walkSeconds = duration / speed
        let walkerExit = await stack.waitForExit("sensors", timeout: .seconds(walkSeconds * 3 + 120))
        await faults.value
        guard walkerExit == 0 else {
            throw Failure(description: "the walker exited with \(walkerExit.map { "status \($0)" } ?? "no status (still running)")")
        }
        let crashed = await stack.crashed()
        guard crashed.isEmpty else { throw Failure(description: "services exited on their own:\n\(crashed.joined(separator: "\n"))") }

        var outcome = ChaosOutcome()
        outcome.finalSteps = seen.steps.withLock { $0 }
        outcome.published = Self.publishedCount(log: folder.appendingPathComponent("sensors.log"))
        guard outcome.finalSteps.count == devices else {
            throw Failure(description: "saw step counts of \(outcome.finalSteps.count) of \(devices) devices")
        }
        progress("\(label): walk over (\(outcome.published) messages published); waiting for every position and history")
        let finalSteps = outcome.finalSteps
        try await waitUntil(
            "every service online and every position at the walker's step count", timeout: .seconds(120), stack: stack,
            missing: {
                let positions = seen.positionSteps.withLock { $0 }
                let behind = finalSteps.sorted { $0.key < $1.key }.filter { positions[$0.key] != $0.value }.map {
                    "\($0.key) position at \(positions[$0.key].map(String.init) ?? "none") of \($0.value) steps"
                }
                return (seen.offline() + behind).joined(separator: "; ")
            },
            until: {
                let positions = seen.positionSteps.withLock { $0 }
                return seen.offline().isEmpty && finalSteps.allSatisfy { positions[$0.key] == $0.value }
            })
        outcome.positions = try await retainedPositions(port: port)
        outcome.historyTotals = try await historyTotals(observer, expected: outcome.finalSteps)
        outcome.journals = try await journalWalks(observer)
        await observer.disconnect()
        outcome.exits = await stack.stopAll()
        return outcome
    }

    /// Applies one fault at its time.
    private static func inject(_ event: ChaosPlan.Event, into stack: ChaosStack, from start: ContinuousClock.Instant) async {
        try? await Task.sleep(until: start.advanced(by: .seconds(event.at)), clock: .continuous)
        switch event.fault {
        case .killService(let service):
            await stack.kill(service)
            try? await Task.sleep(for: .seconds(event.outage))
            do { try await stack.start(service) } catch { await stack.note("could not restart \(service): \(error)") }
        case .stopBroker(let sigkill):
            await stack.stopBroker(sigkill: sigkill)
            try? await Task.sleep(for: .seconds(event.outage))
            do { try await stack.startBroker() } catch { await stack.note("could not restart the broker: \(error)") }
        }
    }

    static func client(port: Int, id: String) async throws -> MosquittoBus {
        var logger = Logger(label: id)
        logger.logLevel = .critical  // The driver's own clients lose the broker on purpose.
        let bus = try MosquittoBus(
            configuration: MosquittoConfiguration(
                host: "127.0.0.1", port: port, clientID: id, cleanStart: true, reconnectDelay: .milliseconds(50),
                reconnectDelayMax: .milliseconds(500)),
            logger: logger)
        try await bus.connect(timeout: .seconds(10))
        return bus
    }

    /// Follows the services' states, the devices' step counts and their positions (the observer resubscribes after
    /// each broker restart).
    private func watch(_ observer: MosquittoBus, seen: Seen) async throws -> Task<Void, Never> {
        let topics = Self.topics
        let status = try await observer.subscribe(to: try TopicFilter(topics.serviceStatus("+")), qos: .atLeastOnce)
        let steps = try await observer.subscribe(to: try TopicFilter(topics.allDevices(.steps)), qos: .atLeastOnce)
        let positions = try await observer.subscribe(to: try TopicFilter(topics.allDevices(.position)), qos: .atLeastOnce)
        return Task {
            let decoder = JSONDecoder()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in status {
                        if let status = try? decoder.decode(ServiceStatus.self, from: message.payload) {
                            seen.states.withLock { $0[status.service] = status.state.rawValue }
                        }
                    }
                }
                group.addTask {
                    let payloads = PayloadDecoder()
                    for await message in steps {
                        guard let device = topics.parseDeviceTopic(message.topic)?.device,
                            let count = try? StepsMessage.decode(message.payload, using: payloads).count()
                        else { continue }
                        seen.steps.withLock { $0[device] = max($0[device] ?? 0, Int(count)) }
                    }
                }
                group.addTask {
                    for await message in positions {
                        guard let device = topics.parseDeviceTopic(message.topic)?.device,
                            let count = (try? decoder.decode(PositionMessage.self, from: message.payload))?.steps
                        else { continue }
                        seen.positionSteps.withLock { $0[device] = count }
                    }
                }
            }
        }
    }

    /// Waits (looking every 100 ms) until `condition` holds; fails with the stack's log after `timeout`.
    private func waitUntil(
        _ what: String, timeout: Duration, stack: ChaosStack, missing: () -> String, until condition: () -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "\(label): not \(what) within \(timeout): \(missing())")
            }
            let crashed = await stack.crashed()
            guard crashed.isEmpty else { throw Failure(description: "services exited on their own:\n\(crashed.joined(separator: "\n"))") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Gives every device its location permission and starts its journal walk; waits until the journal says so.
    private func startJournalWalks(_ observer: MosquittoBus) async throws {
        let journals = try await observer.subscribe(to: try TopicFilter(Self.topics.allDevices(.journal)), qos: .atLeastOnce)
        defer { Task { try? await observer.unsubscribe(journals) } }
        for device in deviceIDs {
            try await observer.publish(
                BusMessage(
                    topic: Self.topics.device(device, .permissions), text: #"{"motion":"authorized","location":"authorized"}"#,
                    qos: .atLeastOnce, retain: true))
            try await observer.publish(BusMessage(topic: Self.topics.device(device, .commandWalk), text: #"{"action":"start"}"#, qos: .atLeastOnce))
        }
        var walking = Set<String>()
        let deadline = ContinuousClock.now + .seconds(60)
        while walking.count < devices, let message = await journals.next(before: deadline) {
            if message.text.contains(#""walk":{"#), let device = Self.topics.parseDeviceTopic(message.topic)?.device { walking.insert(device) }
        }
        guard walking.count == devices else { throw Failure(description: "only \(walking.count) of \(devices) journal walks started within 60 s") }
    }

    /// Every device's retained position, read by a new client.
    private func retainedPositions(port: Int) async throws -> [String: ChaosOutcome.Position] {
        let reader = try await Self.client(port: port, id: "chaos-reader-\(label)")
        let subscription = try await reader.subscribe(to: try TopicFilter(Self.topics.allDevices(.position)), qos: .atLeastOnce)
        var positions: [String: ChaosOutcome.Position] = [:]
        while positions.count < devices, let message = await subscription.next(timeout: .seconds(5)) {
            guard let device = Self.topics.parseDeviceTopic(message.topic)?.device,
                let position = (try? JSONDecoder().decode(PositionMessage.self, from: message.payload)).flatMap(ChaosOutcome.Position.init)
            else { continue }
            positions[device] = position
        }
        await reader.disconnect()
        return positions
    }

    /// Every device's step history total (the sum of its day buckets), asked again for up to 30 s while it is not
    /// yet the walker's count (the service writes in batches).
    private func historyTotals(_ observer: MosquittoBus, expected: [String: Int]) async throws -> [String: Int64] {
        let start = WalkerConfiguration().startDate
        let requester = HistoryRequester(bus: observer, topics: Self.topics, timeout: .seconds(15))
        var totals: [String: Int64] = [:]
        for device in deviceIDs {
            let query = try HistoryQuery(
                device: device, from: start.addingTimeInterval(-86_400), to: start.addingTimeInterval(2 * 86_400), granularity: .day)
            let deadline = ContinuousClock.now + .seconds(30)
            repeat {
                if let buckets = try? await requester.send(query).buckets() {
                    totals[device] = buckets.reduce(0) { $0 + $1.steps }
                }
                if totals[device] == expected[device].map(Int64.init) { break }
                try await Task.sleep(for: .milliseconds(500))
            } while ContinuousClock.now < deadline
        }
        return totals
    }

    /// Every device's journal walk: its photo points and their photo ids.
    private func journalWalks(_ observer: MosquittoBus) async throws -> [String: ChaosOutcome.JournalWalk] {
        let requester = JournalRequester(bus: observer, topics: Self.topics, timeout: .seconds(15))
        var journals: [String: ChaosOutcome.JournalWalk] = [:]
        for device in deviceIDs {
            guard let walk = try? await requester.walks(of: device).walks().first,
                let points = try? await requester.points(of: walk.id, device: device)
            else { continue }
            journals[device] = ChaosOutcome.JournalWalk(points: points.map(\.point), photos: points.map { $0.photo?.id })
        }
        return journals
    }

    /// The messages the walkers published, from the simulator's `walker stopped` lines (one a walker) or its `fleet
    /// stopped` line (the whole of a fleet of more than ten).
    static func publishedCount(log: URL) -> Int {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("walker stopped") || $0.contains("fleet stopped") }.reduce(0) { total, line in
            guard let range = line.range(of: "sensors.messages=") else { return total }
            return total + (Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
    }
}
