import Foundation
import PhoneFormats
import StepCompassContract
import StepCompassTesting
import Testing

/// Thousands of broken variants of valid payloads (``JSONMutator``, seeded) through every decoder that reads what
/// phones and users send: none may crash or hang; each either decodes or throws its own error type.
@Suite("Decoders fuzzed with mutated payloads")
struct DecoderFuzzTests {
    static let rounds = 3_000

    static let imuSeeds = [
        #"{"timestamp":"2026-11-22T10:15:30.250Z","accel":[0.12,-0.5,9.81],"mag":[21.5,-3.25,-40.0],"gyro":[0.01,0,-0.002]}"#,
        #"{"accel":[0,0,9.8],"mag":[20,0,-40]}"#,
        #"{"mag":[1e1,2E-1,-3.5e+2],"accel":[-0.0,1,2],"timestamp":null}"#,
    ]

    @Test("IMU payloads: the fast path and JSONDecoder agree on every payload the fast path accepts")
    func imuFastPathAgrees() throws {
        let decoder = PayloadDecoder()
        var mutator = JSONMutator(seed: 11)
        var accepted = 0
        for seed in Self.imuSeeds.map({ Array($0.utf8) }) {
            for _ in 0..<Self.rounds {
                let payload = Data(mutator.mutate(seed))
                let fast = IMUPayload.parseFast(payload, maximumSize: decoder.maximumSize)
                let slow = try? decoder.decode(IMUPayload.self, from: payload)
                if let fast {
                    accepted += 1
                    #expect(
                        slow == fast,
                        "the fast path read \(String(decoding: payload, as: UTF8.self)) as \(fast), JSONDecoder as \(String(describing: slow))")
                }
                // The public entry never traps, whatever the bytes.
                _ = try? IMUPayload.decode(payload, using: decoder)
            }
        }
        #expect(accepted > 100, "the mutations never kept a payload valid: the property was not exercised")
    }

    @Test("device commands, Sensor Logger pushes, OwnTracks and gpsd lines: decode or throw, never crash")
    func phoneFormats() {
        var mutator = JSONMutator(seed: 12)
        let command = Array(#"{"action":"lock","bearing":45.5,"threshold":10}"#.utf8)
        let walk = Array(#"{"action":"start","name":"Canal \u00e9"}"#.utf8)
        let sensorLogger = Array(
            #"{"messageId":3,"sessionId":"s","deviceId":"d","payload":[{"name":"accelerometer","time":1732270530250000000,"values":{"x":0.1,"y":0.2,"z":9.8}},{"name":"location","time":1732270530250000000,"values":{"latitude":52.5,"longitude":13.4,"horizontalAccuracy":5}}]}"#
                .utf8)
        let ownTracks = Array(#"{"_type":"location","lat":52.5,"lon":13.4,"tst":1732270530,"acc":8,"alt":34}"#.utf8)
        let gpsd = Array(
            #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2026-11-22T10:15:30.000Z","lat":52.5,"lon":13.4,"alt":34.1,"eph":5.2}"#.utf8)
        // Per decoder, how many mutated payloads still decoded: each must have been exercised on both sides.
        var decoded: [String: Int] = [:]
        func count(_ name: String, _ ok: Bool) { if ok { decoded[name, default: 0] += 1 } }
        for _ in 0..<Self.rounds {
            count("bearing lock", (try? DeviceCommand.decode(.commandBearingLock, json: Data(mutator.mutate(command)))) != nil)
            count("walk", (try? DeviceCommand.decode(.commandWalk, json: Data(mutator.mutate(walk)))) != nil)
            count("Sensor Logger", (try? SensorLoggerMessage.decode(Data(mutator.mutate(sensorLogger)))) != nil)
            count("OwnTracks", (try? OwnTracksMessage.decode(Data(mutator.mutate(ownTracks)))) != nil)
            count("gpsd", (try? GPSDReport.decode(line: String(decoding: mutator.mutate(gpsd), as: UTF8.self))) != nil)
            _ = Timestamp.parse(String(decoding: mutator.mutate(Array("2026-11-22T10:15:30.250Z".utf8)), as: UTF8.self))
        }
        for name in ["bearing lock", "walk", "Sensor Logger", "OwnTracks", "gpsd"] {
            #expect((decoded[name] ?? 0) > 20, "\(name): \(decoded[name] ?? 0) of \(Self.rounds) mutations decoded")
            #expect((decoded[name] ?? 0) < Self.rounds, "\(name): every mutation decoded, none was refused")
        }
    }
}
