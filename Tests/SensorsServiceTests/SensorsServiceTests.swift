import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import SensorsService
import ServiceRuntime
import Testing
import WalkerSimulation

/// A context on `bus` whose `ready()` is signalled on the returned stream.
func makeContext(_ bus: any MessageBus) -> (BusServiceContext, AsyncStream<Void>) {
    let (ready, continuation) = AsyncStream.makeStream(of: Void.self)
    let context = BusServiceContext(service: "sensors", bus: bus, logger: Logger(label: "test.sensors")) {
        continuation.yield()
    }
    return (context, ready)
}

/// Connected in-memory buses for the service and a probe listening to every device topic.
struct SensorsFixture {
    let broker = InMemoryBroker()
    let service: InMemoryBus
    let probe: InMemoryBus
    let messages: BusSubscription

    init() async throws {
        service = InMemoryBus(broker: broker, clientID: "stepcompass-sensors", cleanStart: true)
        service.connect()
        probe = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
        probe.connect()
        messages = try await probe.subscribe(to: TopicFilter("stepcompass/#"))
    }

    /// Runs the service to the end of its duration and returns what it published.
    func run(_ configuration: SensorsConfiguration) async throws -> [BusMessage] {
        let (context, _) = makeContext(service)
        try await SensorsService(
            configuration: configuration, context: context, clock: ContinuousClock(),
            fieldSource: ConstantGeomagneticField.munich
        ).run()
        return await messages.collect(1_000_000, timeout: .milliseconds(100))
    }
}

func json(_ message: BusMessage) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: message.payload) as? [String: Any])
}

func fast(_ devices: [String] = ["walker-1"], seed: UInt64 = 1, duration: Double = 10) -> SensorsConfiguration {
    var walker = WalkerConfiguration()
    walker.seed = seed
    return SensorsConfiguration(devices: devices, walker: walker, speed: 500, duration: duration)
}

@Suite("Sensor publisher on the in-memory bus")
struct SensorsServiceTests {
    @Test("publishes every topic with valid payloads at the contract's rates and QoS")
    func publishesAllTopics() async throws {
        let fixture = try await SensorsFixture()
        let messages = try await fixture.run(fast(duration: 10))
        func on(_ suffix: String) -> [BusMessage] { messages.filter { $0.topic == "stepcompass/walker-1/\(suffix)" } }

        let permissions = try #require(fixture.broker.retainedMessage(on: "stepcompass/walker-1/permissions"))
        #expect(try json(permissions)["motion"] as? String == "authorized")
        #expect(try json(permissions)["location"] as? String == "authorized")
        #expect(permissions.qos == .atLeastOnce)

        let imu = on("imu")
        #expect(imu.count == 501)  // 50 Hz over 10 s, both ends included
        #expect(imu.allSatisfy { $0.qos == .atMostOnce && !$0.retain })
        let stamps = try imu.map { message -> Date in
            let text = try json(message)["timestamp"] as? String ?? ""
            return try #require(Timestamp.parse(text))
        }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { abs($1.timeIntervalSince($0) - 0.02) < 0.0015 })
        #expect(abs(stamps.last!.timeIntervalSince(stamps.first!) - 10) < 0.002)
        for sample in try imu.prefix(50).map(json) {
            let accel = try #require(sample["accel"] as? [Double])
            let mag = try #require(sample["mag"] as? [Double])
            #expect(accel.count == 3 && mag.count == 3 && (sample["gyro"] as? [Double])?.count == 3)
            let g = accel.map { $0 * $0 }.reduce(0, +).squareRoot()
            #expect(g > 7 && g < 13)
        }

        let location = on("location")
        #expect(location.count == 11)
        #expect(location.allSatisfy { $0.qos == .atLeastOnce })
        for fix in try location.map(json) {
            for field in ["latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "speed", "course"] {
                #expect((fix[field] as? Double)?.isFinite == true, "\(field)")
            }
            #expect(abs((fix["latitude"] as? Double ?? 0) - 48.1527) < 0.01)
        }

        let steps = try on("steps").map { try #require(try json($0)["steps"] as? Int) }
        #expect(on("steps").allSatisfy { $0.qos == .atLeastOnce })
        #expect(steps.count >= 14 && steps.count <= 22)  // about 1.8 steps a second
        #expect(steps == Array(1...steps.count))

        let truth = try on("simulation/truth").map(json)
        #expect(truth.count == 11)
        #expect(truth.allSatisfy { ($0["heading"] as? Double).map { (0..<360).contains($0) } == true })
        #expect(truth.last?["steps"] as? Int == steps.last)
    }

    @Test("runs at the requested speed")
    func pacing() async throws {
        let fixture = try await SensorsFixture()
        var configuration = fast(duration: 2)
        configuration.speed = 10
        let clock = ContinuousClock()
        let start = clock.now
        let messages = try await fixture.run(configuration)
        let elapsed = start.duration(to: clock.now)
        #expect(elapsed >= .milliseconds(195))
        // Only "it ends": CPU-bound tests running in parallel can hold both threads of the cooperative pool for
        // seconds on a 2-core machine. The lower bound is the one that checks the pacing.
        #expect(elapsed < .seconds(60))
        #expect(messages.filter { $0.topic.hasSuffix("/imu") }.count == 101)
    }

    @Test("a seed gives the same messages every time; another seed gives others")
    func determinism() async throws {
        let first = try await SensorsFixture().run(fast(seed: 7, duration: 4))
        let again = try await SensorsFixture().run(fast(seed: 7, duration: 4))
        let other = try await SensorsFixture().run(fast(seed: 8, duration: 4))
        #expect(first.count > 200)
        #expect(first.map(\.topic) == again.map(\.topic))
        #expect(first.map(\.payload) == again.map(\.payload))
        #expect(first.map(\.payload) != other.map(\.payload))
    }

    @Test("a walker of a fleet publishes what it publishes walking alone with its seed")
    func fleetWalkerAsAlone() async throws {
        let fleetFixture = try await SensorsFixture()
        let fleet = try await fleetFixture.run(fast(SensorsConfiguration.fleet(3), seed: 7, duration: 3))
        let aloneFixture = try await SensorsFixture()
        // walker-2 is the fleet's second walker: the base seed plus one.
        let alone = try await aloneFixture.run(fast(["walker-2"], seed: 8, duration: 3))
        let inFleet = fleet.filter { $0.topic.hasPrefix("stepcompass/walker-2/") }
        #expect(inFleet.count > 150)
        #expect(inFleet.map(\.topic) == alone.map(\.topic))
        #expect(inFleet.map(\.payload) == alone.map(\.payload))
    }

    @Test("a fleet publishes every walker from one loop, each with its own seed")
    func fleet() async throws {
        let fixture = try await SensorsFixture()
        let devices = SensorsConfiguration.fleet(3)
        #expect(devices == ["walker-1", "walker-2", "walker-3"])
        let messages = try await fixture.run(fast(devices, duration: 2))
        for device in devices {
            #expect(messages.filter { $0.topic == "stepcompass/\(device)/imu" }.count == 101)
            #expect(fixture.broker.retainedMessage(on: "stepcompass/\(device)/permissions") != nil)
        }
        let imu1 = messages.filter { $0.topic == "stepcompass/walker-1/imu" }.map(\.payload)
        let imu2 = messages.filter { $0.topic == "stepcompass/walker-2/imu" }.map(\.payload)
        #expect(imu1 != imu2)
    }

    @Test("bad settings are refused before anything is published")
    func badSettings() async throws {
        let fixture = try await SensorsFixture()
        let (context, _) = makeContext(fixture.service)
        #expect(throws: SensorsError.self) {
            try SensorsService(
                configuration: fast(["bad.id"]), context: context, clock: ContinuousClock(),
                fieldSource: ConstantGeomagneticField.munich)
        }
        var slow = fast()
        slow.speed = 0
        #expect(throws: SensorsError.self) {
            try SensorsService(
                configuration: slow, context: context, clock: ContinuousClock(),
                fieldSource: ConstantGeomagneticField.munich)
        }
        #expect(fixture.broker.publishedCount == 0)
    }

    @Test("a recording replays the same messages on the same topics, then the replay ends")
    func recordAndReplay() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sensors-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let fixture = try await SensorsFixture()
        let recorderBus = InMemoryBus(broker: fixture.broker, clientID: "recorder", cleanStart: true)
        recorderBus.connect()
        let (recorderContext, recorderReady) = makeContext(recorderBus)
        let recorder = Task {
            try await SensorRecorder(
                device: "walker-1", file: file, duration: nil, context: recorderContext,
                clock: ContinuousClock()
            ).record()
        }
        var ready = recorderReady.makeAsyncIterator()
        await ready.next()
        let original = try await fixture.run(fast(duration: 3)).filter { $0.topic.hasPrefix("stepcompass/walker-1/") }
        try await Task.sleep(for: .milliseconds(50))
        recorder.cancel()
        let recorded = try await recorder.value
        #expect(recorded == original.count)

        let replayFixture = try await SensorsFixture()
        let (context, _) = makeContext(replayFixture.service)
        let published = try await SensorReplayer(
            device: "walker-1", file: file, speed: 20, context: context,
            clock: ContinuousClock()
        ).replay()
        #expect(published == original.count)
        let replayed = await replayFixture.messages.collect(1_000_000, timeout: .milliseconds(100))
        #expect(replayed.map(\.topic) == original.map(\.topic))
        #expect(replayed.map(\.qos) == original.map(\.qos))
        for (copy, source) in zip(replayed, original) {
            let a = try JSONSerialization.jsonObject(with: copy.payload) as? NSDictionary
            let b = try JSONSerialization.jsonObject(with: source.payload) as? NSDictionary
            #expect(a == b)
        }
        #expect(replayFixture.broker.retainedMessage(on: "stepcompass/walker-1/permissions") != nil)
    }

    @Test("a malformed recording is refused with the line number")
    func malformedRecording() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"t": 0, "topic": "steps", "payload": {"steps": 1}}\#noops\#n"#.utf8).write(to: file)
        let fixture = try await SensorsFixture()
        let (context, _) = makeContext(fixture.service)
        do {
            try await SensorReplayer(device: "walker-1", file: file, speed: 1, context: context, clock: ContinuousClock()).replay()
            Issue.record("expected an error")
        } catch let error as SensorsError {
            #expect(error.code == .unreadableRecording)
            #expect(error.message.contains("line 2"))
        }
        #expect(fixture.broker.publishedCount == 0)
    }
}
