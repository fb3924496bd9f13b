import Foundation
import StepDetection

/// The IMU payloads of the detector load: walkers holding the phone flat, each with its own phase.
///
/// The accelerometer reads gravity on z plus a walking signal: vertical bounce of ~1.5 m/s² at the cadence with
/// its second and third harmonics, forward surge at the cadence and lateral sway at half the cadence (one stride).
/// Payloads are assembled from bytes prepared once (the signal at 2,000 phases of a stride, the magnetometer
/// reading fixed) and one timestamp per tick shared by all devices, so 200,000 samples a second cost the load tool
/// little of the two cores.
///
/// ``reference(ticks:rate:)`` runs the project's own ``StepDetector`` over each device's samples exactly as the
/// bridge will see them (the values parsed back from their text), so the load tool knows how many steps each
/// device should get and which sample completes each one: the latency of a `steps` message is measured from that
/// sample's timestamp.
struct WalkingSamples: Sendable {
    static let phases = 2_000
    let count: Int
    /// Steps per second.
    let cadence: Double
    let rate: Double
    /// Each device's start phase, in strides (0..<1).
    private let startPhase: [Double]
    private let topicBytes: [[UInt8]]
    /// `x,y,z` of the accelerometer at each phase of a stride.
    private let fragments: [[UInt8]]
    /// The same values as the bridge parses them.
    private let values: [SIMD3<Double>]
    private static let head = Array(#"{"timestamp":""#.utf8)
    private static let middle = Array(#"","accel":["#.utf8)
    private static let tail = Array(#"],"mag":[12.5,-3.25,-41.0]}"#.utf8)

    /// - Parameters:
    ///   - count: Devices `walk-1` ... `walk-N`.
    ///   - prefix: The topic root.
    ///   - cadence: Steps per second (the fundamental of the vertical bounce).
    ///   - rate: Samples per second.
    ///   - seed: Seeds the devices' phases.
    init(count: Int, prefix: String, cadence: Double, rate: Double, seed: UInt64) {
        self.count = count
        self.cadence = cadence
        self.rate = rate
        var state = seed
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        startPhase = (0..<count).map { _ in random() }
        topicBytes = (1...max(1, count)).map { Array("\(prefix)/walk-\($0)/imu".utf8) }
        var fragments: [[UInt8]] = []
        var values: [SIMD3<Double>] = []
        for index in 0..<Self.phases {
            // s: phase in strides; each stride holds two steps.
            let s = 2 * Double.pi * Double(index) / Double(Self.phases)
            let step = 2 * s
            let vertical = 1.5 * sin(step) + 0.35 * sin(2 * step + 0.6) + 0.15 * sin(3 * step + 1.7)
            let forward = 0.8 * sin(step + 1.2) + 0.2 * sin(2 * step + 2.1)
            let lateral = 0.6 * sin(s + 0.3)
            let text = String(format: "%.3f,%.3f,%.3f", lateral, forward, 9.80665 + vertical)
            fragments.append(Array(text.utf8))
            let parsed = text.split(separator: ",").map { Double($0)! }
            values.append(SIMD3(parsed[0], parsed[1], parsed[2]))
        }
        self.fragments = fragments
        self.values = values
    }

    /// The device id of index `device` (0-based).
    static func id(_ device: Int) -> String { "walk-\(device + 1)" }

    private func phaseIndex(device: Int, tick: Int) -> Int {
        var phase = (startPhase[device] + cadence / 2 * Double(tick) / rate).truncatingRemainder(dividingBy: 1)
        if phase < 0 { phase += 1 }
        return min(Self.phases - 1, Int(phase * Double(Self.phases)))
    }

    /// Appends the MQTT 3.1.1 PUBLISH packet (QoS 0) of device `device`'s sample of tick `tick`, stamped `timestamp`.
    func appendPublishPacket(device: Int, tick: Int, timestamp: [UInt8], to bytes: inout [UInt8]) {
        let topic = topicBytes[device]
        let fragment = fragments[phaseIndex(device: device, tick: tick)]
        let payloadLength = Self.head.count + timestamp.count + Self.middle.count + fragment.count + Self.tail.count
        bytes.append(0x30)
        RawMQTTClient.appendLength(2 + topic.count + payloadLength, to: &bytes)
        bytes.append(UInt8(topic.count >> 8))
        bytes.append(UInt8(topic.count & 0xFF))
        bytes.append(contentsOf: topic)
        bytes.append(contentsOf: Self.head)
        bytes.append(contentsOf: timestamp)
        bytes.append(contentsOf: Self.middle)
        bytes.append(contentsOf: fragment)
        bytes.append(contentsOf: Self.tail)
    }

    /// What the bridge's detector should find in each device's samples of ticks `0..<ticks`.
    struct Reference: Sendable {
        /// For each device, the tick of the sample that completes its n-th counted step (index n − 1). Steps
        /// released together (the detector confirms a walk after several regular steps) share the tick.
        var completions: [[Int]]
        var totalSteps: Int { completions.reduce(0) { $0 + $1.count } }
    }

    /// Runs ``StepDetector`` (the bridge's defaults) over every device's samples, timed `time(tick)` (the
    /// timestamps as the bridge parses them).
    func reference(ticks: Int, time: (Int) -> Double) -> Reference {
        let times = (0..<ticks).map(time)
        var completions: [[Int]] = []
        completions.reserveCapacity(count)
        for device in 0..<count {
            var detector = StepDetector(configuration: .defaults)
            var ticksOfSteps: [Int] = []
            for tick in 0..<ticks {
                let found = detector.add(time: times[tick], acceleration: values[phaseIndex(device: device, tick: tick)])
                for _ in 0..<found.count { ticksOfSteps.append(tick) }
            }
            completions.append(ticksOfSteps)
        }
        return Reference(completions: completions)
    }
}
