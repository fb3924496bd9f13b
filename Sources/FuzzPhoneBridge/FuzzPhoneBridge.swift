import Foundation
import FuzzSupport
import PhoneFormats
import StepCompassContract

/// libFuzzer target: the phone bridge's bodies: a Sensor Logger push (HTTP `POST /sensor-logger` and MQTT), an
/// OwnTracks message, a gpsd report line, and the device ids made from what phones call themselves.
///
/// Properties: decoding never traps and only throws `PhoneFormatError`; a push goes through a Sensor Logger session
/// (each platform convention, and detection) and everything the bridge would publish for it is a valid contract
/// message that the services read (the IMU and steps fast paths take it, locations decode with their timestamps),
/// in time order; the same holds for OwnTracks and gpsd fixes; and every device id made is valid.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    Fuzz.run(start, count) { bytes in
        BridgeProperties.sensorLogger(bytes)
        BridgeProperties.ownTracks(bytes)
        BridgeProperties.gpsd(bytes)
    }
}

enum BridgeProperties {
    static let decoder = PayloadDecoder()
    static let conventions: [SensorLoggerConvention?] = [nil, .android, .iOSDefault, .iOSStandardised]

    static func sensorLogger(_ bytes: [UInt8]) {
        guard let message = try? SensorLoggerMessage.decode(bytes, limits: .init(maximumBytes: 1 << 20)) else { return }
        requireValidID(DeviceID.sanitized(message.deviceId ?? "sensor-logger"), from: message.deviceId ?? "sensor-logger")
        for convention in conventions {
            var session = SensorLoggerSession(convention: convention, pipeline: PhoneDevicePipeline(reorderDelay: 1))
            let outputs = session.receive(message) + session.flush()
            var previous = -Double.infinity
            for output in outputs {
                Fuzz.require(output.timestamp >= previous, "outputs out of time order: \(output.timestamp) after \(previous)")
                previous = output.timestamp
                publishable(output)
            }
        }
    }

    static func ownTracks(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let id = OwnTracksMessage.deviceID(topic: text) { requireValidID(id, from: text) }
        requireValidID(DeviceID.sanitized(text), from: text)
        guard let fix = try? OwnTracksMessage.decode(bytes) else { return }
        publishable(.location(fix))
    }

    static func gpsd(_ bytes: [UInt8]) {
        var buffer = GPSDLineBuffer(maximumLineLength: 4_096)
        var lines = buffer.append(bytes)
        // A line without its newline is the whole input (what a test feeds `decode(line:)`).
        if lines.isEmpty { lines = [String(decoding: bytes, as: UTF8.self)] }
        for line in lines {
            guard case .fix(let fix)? = try? GPSDReport.decode(line: line) else { continue }
            publishable(.location(fix))
        }
    }

    /// What the bridge publishes for an output (`ContractMessages`, over `ContractPayloads`) is what the services read.
    static func publishable(_ output: PhoneOutput) {
        switch output {
        case .acceleration(let sample):
            Fuzz.require(sample.timestamp.isFinite, "an acceleration sample has no time")
        case .imu(let sample):
            // nil only for a non-finite number, which the bridge then leaves out.
            guard let json = ContractPayloads.imu(sample) else { return }
            let payload = IMUPayload.parseFast(Data(json.utf8), maximumSize: decoder.maximumSize)
            Fuzz.require(payload != nil, "the IMU payload \(json) does not take the fast path")
            Fuzz.require(payload?.timestamp.flatMap(Timestamp.parse) != nil, "the IMU payload \(json) has no readable timestamp")
        case .location(let fix):
            guard let json = ContractPayloads.location(fix) else { return }
            let message: LocationMessage
            do {
                message = try decoder.decode(LocationMessage.self, from: Data(json.utf8))
            } catch {
                Fuzz.fail("the location \(json) does not decode: \(error)")
            }
            Fuzz.require(
                (-90...90).contains(message.latitude) && (-180...180).contains(message.longitude), "the location \(json) is out of range")
            Fuzz.require((try? Timestamp.date(message.timestamp)) != nil, "the location \(json) has no readable timestamp")
        case .steps(let count):
            let json = ContractPayloads.steps(count.steps, source: "pedometer", time: count.timestamp)
            let payload = StepsMessage.parseFast(Data(json.utf8), maximumSize: decoder.maximumSize)
            Fuzz.require(payload != nil, "the steps payload \(json) does not take the fast path")
            Fuzz.require((try? payload?.count()) == Int64(count.steps), "the steps payload \(json) does not count \(count.steps)")
            Fuzz.require(payload?.timestamp.flatMap(Timestamp.parse) != nil, "the steps payload \(json) has no readable timestamp")
        }
    }

    static func requireValidID(_ id: String, from text: String) {
        Fuzz.require(DeviceID.isValid(id), "'\(id)', made from '\(text.prefix(100))', is not a valid device id")
    }
}
