import BridgeService
import Bus
import BusTesting
import Foundation
import InMemoryBus
import ServiceRuntime
import StepDetection
import Testing
import WalkerSimulation

/// The bridge's step detector, fed by `imu` messages on the bus as any publisher sends them.
@Suite("Phone bridge: steps from the raw accelerometer")
struct StepDetectionServiceTests {
    let broker = InMemoryBroker()

    /// Publishes `seconds` of a simulated walker's IMU samples as `device` and returns the true step count; `read`
    /// gets each sample as the bridge reads it back (the time from the millisecond timestamp, the acceleration).
    private func walk(
        _ carry: PhoneCarry, device: String, seconds: Double, on bus: InMemoryBus,
        read: (Double, SIMD3<Double>) -> Void = { _, _ in }
    ) async throws -> Int {
        var configuration = WalkerConfiguration()
        configuration.carry = carry
        configuration.imuRate = 100
        configuration.imuJitter = 0.1
        configuration.accelerometerBias = 0.05
        configuration.seed = 5
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: ConstantGeomagneticField.munich)
        let start = 1_795_341_600.0
        for event in walker.advance(to: seconds) {
            guard case .imu(let t, let accel, let mag, _) = event else { continue }
            let stamp = Timestamp.format(Date(timeIntervalSince1970: start + t))
            if let time = Timestamp.parse(stamp)?.timeIntervalSince1970 { read(time, SIMD3(accel[0], accel[1], accel[2])) }
            try await bus.publish(
                BusMessage(
                    topic: "stepcompass/\(device)/imu",
                    text: #"{"timestamp":"\#(stamp)","accel":[\#(accel[0]),\#(accel[1]),\#(accel[2])],"mag":[\#(mag[0]),\#(mag[1]),\#(mag[2])]}"#,
                    qos: .atMostOnce))
        }
        return walker.steps
    }

    /// Publishes 8 clear steps (4 m/s² every 0.6 s, 50 Hz) as the device `barrier-sync`, after the samples sent before
    /// on the same connection: the bridge handles the detector's samples in order, on one subscription, so once
    /// `stepcompass/barrier-sync/steps` comes back (the walk is confirmed), everything sent before it has been handled.
    /// (A phone push, an OwnTracks location, goes through another subscription, not ordered with the samples.)
    private func barrier(_ bus: InMemoryBus) async throws {
        for index in 0..<250 {
            let t = Double(index) / 50
            let phase = (t - 0.5).truncatingRemainder(dividingBy: 0.6)
            let bounce = t >= 0.5 && phase < 0.22 ? 4 * sin(Double.pi * phase / 0.22) : 0
            let stamp = Timestamp.format(Date(timeIntervalSince1970: 1_795_341_600 + t))
            try await bus.publish(
                BusMessage(
                    topic: "stepcompass/barrier-sync/imu",
                    text: #"{"timestamp":"\#(stamp)","accel":[0.1,0.2,\#(9.81 + bounce)],"mag":[20,0,-40]}"#, qos: .atMostOnce))
        }
    }

    private static let barrierTopic = "stepcompass/barrier-sync/steps"

    /// A probe's subscription to every device's `steps` (the barrier's included) and a connected phone to publish with.
    private func stepsFeedAndPhone() async throws -> (feed: BusSubscription, phone: InMemoryBus) {
        let probe = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
        probe.connect()
        let feed = try await probe.subscribe(to: TopicFilter("stepcompass/+/steps"))
        let phone = InMemoryBus(broker: broker, clientID: "phone", cleanStart: true)
        phone.connect()
        return (feed, phone)
    }

    @Test(
        "a phone in the trouser pocket that sends no pedometer count gets detector steps and a distance",
        arguments: [PhoneCarry.pocket, .texting, .swing])
    func detectedSteps(carry: PhoneCarry) async throws {
        let (feed, phone) = try await stepsFeedAndPhone()
        try await BridgeHarness.with(bus: InMemoryBus(broker: broker, clientID: "stepcompass-bridge")) { _ async throws in
            let truth = try await walk(carry, device: "walker", seconds: 60, on: phone)
            let messages = await collectJSON(feed, timeout: .seconds(20)) { found in
                (found.last?.json["steps"] as? Int ?? 0) >= truth - max(2, truth / 20)
            }
            let last = try #require(messages.last?.json)
            let counted = try #require(last["steps"] as? Int)
            #expect(last["source"] as? String == "detector")
            #expect(abs(counted - truth) <= max(2, truth * 5 / 100), "\(carry): counted \(counted) of \(truth)")
            let distance = try #require(last["distance"] as? Double)
            #expect(distance > Double(counted) * 0.3 && distance < Double(counted) * 1.2)
        }
    }

    /// While walking, the detector holds each step until the next one confirms it; a phone that stops sending right
    /// after a step (the app stopped, the connection lost) gets that step once it has been silent for 3 s.
    @Test("a phone that stops sending mid-walk gets its last step once silent, and the count matches the detector's")
    func silentPhoneGetsLastStep() async throws {
        let (feed, phone) = try await stepsFeedAndPhone()
        try await BridgeHarness.with(bus: InMemoryBus(broker: broker, clientID: "stepcompass-bridge")) { _ async throws in
            var reference = StepDetector()
            _ = try await walk(.texting, device: "stopper", seconds: 30, on: phone) { time, acceleration in
                _ = reference.add(time: time, acceleration: acceleration)
            }
            // The samples stop mid-walk: the last step waits for a next one that never comes.
            #expect(reference.isHoldingStep)
            let held = reference.steps
            let last = try #require(reference.finish().last)
            let messages = await collectJSON(feed, timeout: .seconds(20)) { found in
                (found.last?.json["steps"] as? Int ?? 0) >= held + 1
            }
            let counts = messages.compactMap { $0.json["steps"] as? Int }
            #expect(counts.last == held + 1, "counts \(counts), the detector's \(held) + 1")
            #expect(counts.dropLast().last == held)
            let stamp = try #require(messages.last?.json["timestamp"] as? String)
            let time = try #require(Timestamp.parse(stamp)?.timeIntervalSince1970)
            #expect(abs(time - last.time) < 0.002, "the last count is stamped with its step's time")
        }
    }

    /// A full table forgets its least recently used sixteenth at once (one pass on the bus's thread for that many new
    /// devices); the walking devices that send keep their detectors and counts.
    @Test("more devices than --max-devices: the idlest are forgotten, a walking device keeps its count, new ones count")
    func deviceCap() async throws {
        let (feed, phone) = try await stepsFeedAndPhone()
        let configuration = BridgeConfiguration(httpPort: 0, reorderDelay: 0.05, maxDevices: 32)
        try await BridgeHarness.with(bus: InMemoryBus(broker: broker, clientID: "stepcompass-bridge"), configuration: configuration) { _ in
            // 200 devices send a sample each, interleaved with the walker's samples, so the walker is always recent.
            var walker = try WalkerSimulator(configuration: WalkerConfiguration(), fieldSource: ConstantGeomagneticField.munich)
            var flooded = 0
            for event in walker.advance(to: 30) {
                guard case .imu(let t, let accel, let mag, _) = event else { continue }
                let stamp = Timestamp.format(Date(timeIntervalSince1970: 1_795_341_600 + t))
                let body = #"{"timestamp":"\#(stamp)","accel":[\#(accel[0]),\#(accel[1]),\#(accel[2])],"mag":[\#(mag[0]),\#(mag[1]),\#(mag[2])]}"#
                try await phone.publish(BusMessage(topic: "stepcompass/walker/imu", text: body, qos: .atMostOnce))
                if flooded < 200 && Int(t * 50) % 5 == 0 {
                    flooded += 1
                    try await phone.publish(BusMessage(topic: "stepcompass/flood-\(flooded)/imu", text: body, qos: .atMostOnce))
                }
            }
            #expect(flooded == 200)
            try await barrier(phone)
            let messages = await collectJSON(feed) { found in found.contains { $0.topic == Self.barrierTopic } }
            #expect(messages.contains { $0.topic == Self.barrierTopic }, "a new device after the flood is counted")
            let counts = messages.filter { $0.topic == "stepcompass/walker/steps" }.compactMap { $0.json["steps"] as? Int }
            #expect(counts.count > 10)
            #expect(counts == counts.sorted(), "the walker's count never restarted: \(counts)")
            #expect(abs((counts.last ?? 0) + 1 - walker.steps) <= max(2, walker.steps / 20), "\(counts.last ?? 0) of \(walker.steps)")
        }
    }

    @Test("once a pedometer count arrives, the detector publishes nothing more for that device")
    func pedometerWins() async throws {
        let (feed, phone) = try await stepsFeedAndPhone()
        try await BridgeHarness.with(bus: InMemoryBus(broker: broker, clientID: "stepcompass-bridge")) { _ async throws in
            try await phone.publish(BusMessage(topic: "stepcompass/counted/steps", text: #"{"steps": 0}"#, qos: .atLeastOnce))
            _ = try await walk(.hand, device: "counted", seconds: 30, on: phone)
            try await barrier(phone)
            let messages = await collectJSON(feed) { found in found.contains { $0.topic == Self.barrierTopic } }
            #expect(messages.contains { $0.topic == Self.barrierTopic })
            #expect(!messages.contains { $0.topic != Self.barrierTopic && $0.json["source"] as? String == "detector" })
        }
    }

    @Test("a phone lying still gets no step")
    func stillPhone() async throws {
        let (feed, phone) = try await stepsFeedAndPhone()
        try await BridgeHarness.with(bus: InMemoryBus(broker: broker, clientID: "stepcompass-bridge")) { _ async throws in
            var configuration = WalkerConfiguration()
            configuration.activity = .pickUpAndPutDown
            var walker = try WalkerSimulator(configuration: configuration, fieldSource: ConstantGeomagneticField.munich)
            for event in walker.advance(to: 40) {
                guard case .imu(let t, let accel, let mag, _) = event else { continue }
                let stamp = Timestamp.format(Date(timeIntervalSince1970: 1_795_341_600 + t))
                try await phone.publish(
                    BusMessage(
                        topic: "stepcompass/still/imu",
                        text: #"{"timestamp":"\#(stamp)","accel":[\#(accel[0]),\#(accel[1]),\#(accel[2])],"mag":[\#(mag[0]),\#(mag[1]),\#(mag[2])]}"#,
                        qos: .atMostOnce))
            }
            try await barrier(phone)
            let messages = await collectJSON(feed) { found in found.contains { $0.topic == Self.barrierTopic } }
            #expect(messages.contains { $0.topic == Self.barrierTopic })
            #expect(!messages.contains { $0.topic == "stepcompass/still/steps" })
        }
    }

    /// Seen on real recordings: Sensor Logger on an iPhone records no magnetometer unless it is turned on, and a
    /// contract `imu` needs one, so such a phone's samples never reached the bus and its steps were never counted.
    @Test("a phone that pushes acceleration but no magnetometer gets detector steps, and no imu")
    func pushWithoutMagnetometer() async throws {
        let probe = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
        probe.connect()
        let feed = try await probe.subscribe(to: [
            SubscriptionRequest(try TopicFilter("stepcompass/+/steps")), SubscriptionRequest(try TopicFilter("stepcompass/+/imu")),
        ])
        var configuration = WalkerConfiguration()
        configuration.carry = .texting
        configuration.imuRate = 100
        configuration.seed = 5
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: ConstantGeomagneticField.munich)
        var samples: [String] = []
        for event in walker.advance(to: 40) {
            guard case .imu(let t, let accel, _, _) = event else { continue }
            samples.append(
                SensorLoggerBodies.sample("totalacceleration", Int64((t * 1_000).rounded()), SensorLoggerBodies.xyz(accel[0], accel[1], accel[2])))
        }
        let truth = walker.steps
        let pushes = stride(from: 0, to: samples.count, by: 200).enumerated().map { index, start in
            SensorLoggerBodies.body(messageId: index + 1, Array(samples[start..<min(start + 200, samples.count)]))
        }
        try await BridgeHarness.with(bus: InMemoryBus(broker: broker, clientID: "stepcompass-bridge")) { bridge async throws in
            for batch in pushes {
                let answer = try await bridge.push(batch, query: "device=no-compass&platform=android")
                #expect(answer.status == 200)
                #expect(answer.text.contains(#""imu":0,"#), "\(answer.text)")
            }
            let messages = await collectJSON(feed, timeout: .seconds(20)) { found in
                (found.last { $0.topic.hasSuffix("/steps") }?.json["steps"] as? Int ?? 0) >= truth - max(2, truth / 20)
            }
            #expect(!messages.contains { $0.topic.hasSuffix("/imu") })
            let last = try #require(messages.last { $0.topic == "stepcompass/no-compass/steps" }?.json)
            let counted = try #require(last["steps"] as? Int)
            #expect(last["source"] as? String == "detector")
            #expect(abs(counted - truth) <= max(2, truth * 5 / 100), "counted \(counted) of \(truth)")
            #expect((last["distance"] as? Double ?? 0) > 0)
        }
    }

    @Test("a phone that pushes a pedometer but no magnetometer gets only the pedometer's counts, never the detector's")
    func pedometerWithoutMagnetometer() async throws {
        let probe = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
        probe.connect()
        let feed = try await probe.subscribe(to: TopicFilter("stepcompass/+/steps"))
        var configuration = WalkerConfiguration()
        configuration.carry = .hand
        configuration.imuRate = 100
        configuration.seed = 9
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: ConstantGeomagneticField.munich)
        // In time order, as the phone records them: the pedometer's count every second from 4 s on (after the detector
        // would have confirmed the walk), in pushes of 5 s: the first push holds both.
        var samples: [String] = []
        var counted = 0
        for event in walker.advance(to: 30) {
            guard case .imu(let t, let accel, _, _) = event else { continue }
            let ms = Int64((t * 1_000).rounded())
            samples.append(SensorLoggerBodies.sample("totalacceleration", ms, SensorLoggerBodies.xyz(accel[0], accel[1], accel[2])))
            if ms % 1_000 == 0 && ms >= 4_000 {
                counted = walker.steps
                samples.append(SensorLoggerBodies.sample("pedometer", ms, #"{"steps":\#(counted)}"#))
            }
        }
        let last = counted
        let pushes = stride(from: 0, to: samples.count, by: 500).enumerated().map { index, start in
            SensorLoggerBodies.body(messageId: index + 1, Array(samples[start..<min(start + 500, samples.count)]))
        }
        try await BridgeHarness.with(bus: InMemoryBus(broker: broker, clientID: "stepcompass-bridge")) { bridge async throws in
            for batch in pushes {
                #expect(try await bridge.push(batch, query: "device=counted-no-compass&platform=android").status == 200)
            }
            let messages = await collectJSON(feed, timeout: .seconds(20)) { found in
                found.contains { $0.json["steps"] as? Int == last && $0.json["source"] as? String == "pedometer" }
            }
            #expect(messages.contains { $0.json["steps"] as? Int == last })
            #expect(last > 20)
            #expect(messages.allSatisfy { $0.json["source"] as? String == "pedometer" }, "\(messages.map(\.json))")
        }
    }
}
