import Foundation

/// The IMU payloads of the compass load: flat devices, each slowly turning at its own pace from its own start.
///
/// Payloads are assembled from bytes prepared once (a table of the magnetometer reading at every quarter degree of
/// heading, in a Munich-like field of (21, 1.6, 44) µT north, east, down) and one timestamp per tick shared by all
/// devices, so that generating 50,000 samples a second costs the load tool little of the two cores it shares with
/// the broker and the service under test.
struct LoadSamples: Sendable {
    /// One simulated device.
    struct Device: Sendable {
        var id: String
        var topic: String
        /// Heading at the start, degrees.
        var startHeading: Double
        /// Turn rate, degrees per second (10 to 40, either way): fast enough that every rate window holds a
        /// change past the dead band, so each device publishes headings at the full `--max-rate`.
        var turnRate: Double
    }

    static let steps = 1_440
    let devices: [Device]
    /// Each device's topic as UTF-8, for ``appendPublishPacket(device:seconds:timestamp:to:)``.
    private let topicBytes: [[UInt8]]
    private let fragments: [[UInt8]]
    private static let head = Array(#"{"timestamp":""#.utf8)
    private static let middle = Array(#"","accel":[0.0,0.0,9.80665],"mag":["#.utf8)
    private static let tail = Array("]}".utf8)

    /// - Parameters:
    ///   - count: The number of devices, `load-1` ... `load-N`.
    ///   - prefix: The topic root (`stepcompass`).
    ///   - seed: Seeds the devices' start headings and turn rates.
    init(count: Int, prefix: String, seed: UInt64) {
        var state = seed
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        devices = (1...max(1, count)).map { index in
            let id = "load-\(index)"
            let rate = (10 + 30 * random()) * (random() < 0.5 ? -1 : 1)
            return Device(id: id, topic: "\(prefix)/\(id)/imu", startHeading: 360 * random(), turnRate: rate)
        }
        topicBytes = devices.map { Array($0.topic.utf8) }
        let (north, east, down) = (21.0, 1.6, 44.0)
        fragments = (0..<Self.steps).map { step in
            let h = Double(step) * 360 / Double(Self.steps) * .pi / 180
            // Flat, face up, top towards h: x (right) points to h + 90°, y (top) to h, z up.
            let x = -north * sin(h) + east * cos(h)
            let y = north * cos(h) + east * sin(h)
            return Array(String(format: "%.4f,%.4f,%.4f", x, y, -down).utf8)
        }
    }

    /// The location message of a device (Munich), so the service computes true headings.
    func locationPayload() -> Data {
        Data(#"{"latitude":48.1527,"longitude":11.5918}"#.utf8)
    }

    /// The payload of device `index` at `seconds` since the start, stamped `timestamp`.
    func payload(device index: Int, seconds: Double, timestamp: [UInt8]) -> Data {
        var bytes = [UInt8]()
        appendPayload(device: index, seconds: seconds, timestamp: timestamp, to: &bytes)
        return Data(bytes)
    }

    /// The magnetometer fragment of device `index` at `seconds` since the start.
    private func fragment(device index: Int, seconds: Double) -> [UInt8] {
        let device = devices[index]
        var heading = (device.startHeading + device.turnRate * seconds).truncatingRemainder(dividingBy: 360)
        if heading < 0 { heading += 360 }
        return fragments[min(Self.steps - 1, Int(heading / 360 * Double(Self.steps)))]
    }

    private func appendPayload(device index: Int, seconds: Double, timestamp: [UInt8], to bytes: inout [UInt8]) {
        bytes.append(contentsOf: Self.head)
        bytes.append(contentsOf: timestamp)
        bytes.append(contentsOf: Self.middle)
        bytes.append(contentsOf: fragment(device: index, seconds: seconds))
        bytes.append(contentsOf: Self.tail)
    }

    /// Appends the MQTT 3.1.1 PUBLISH packet (QoS 0, no retain) of device `index`'s sample at `seconds` since
    /// the start, stamped `timestamp`: the same topic and payload as ``payload(device:seconds:timestamp:)``.
    func appendPublishPacket(device index: Int, seconds: Double, timestamp: [UInt8], to bytes: inout [UInt8]) {
        let topic = topicBytes[index]
        let payloadLength =
            Self.head.count + timestamp.count + Self.middle.count
            + fragment(device: index, seconds: seconds).count + Self.tail.count
        bytes.append(0x30)
        RawMQTTClient.appendLength(2 + topic.count + payloadLength, to: &bytes)
        bytes.append(UInt8(topic.count >> 8))
        bytes.append(UInt8(topic.count & 0xFF))
        bytes.append(contentsOf: topic)
        appendPayload(device: index, seconds: seconds, timestamp: timestamp, to: &bytes)
    }
}
