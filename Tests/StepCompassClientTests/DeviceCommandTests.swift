import Foundation
import ServiceRuntime
import StepCompassContract
import Testing

@testable import StepCompassClient

@Suite("Device commands: topics, payloads, checks")
struct DeviceCommandTests {
    private func json(_ command: DeviceCommand) -> String { String(decoding: command.payload, as: UTF8.self) }

    /// The dashboard's path: a command sent with no body at all is the command `{}` (moved here from the fuzz target,
    /// where it did not depend on the input).
    @Test("an empty HTTP body reads as the command {} on every command topic")
    func emptyBody() {
        for topic in [Topics.DeviceTopic.commandBearingLock, .commandCalibrate, .commandSettings, .commandResetPosition, .commandWalk] {
            let empty = try? DeviceCommand.decode(topic, httpBody: Data())
            let braces = try? DeviceCommand.decode(topic, json: Data("{}".utf8))
            #expect(empty == braces, "\(topic.rawValue)")
        }
        #expect((try? DeviceCommand.decode(.commandResetPosition, httpBody: Data())) != nil)
    }

    @Test("each command's topic and payload follow the contract")
    func topicsAndPayloads() {
        #expect(DeviceCommand.lock(bearing: 45, threshold: 10).topic == .commandBearingLock)
        #expect(json(.lock(bearing: 45, threshold: 10)) == #"{"action":"lock","bearing":45,"threshold":10}"#)
        #expect(json(.lock(bearing: 12.5, threshold: nil)) == #"{"action":"lock","bearing":12.5}"#)
        #expect(json(.lock(bearing: nil, threshold: nil)) == #"{"action":"lock"}"#)
        #expect(json(.unlock) == #"{"action":"unlock"}"#)
        #expect(DeviceCommand.unlock.topic == .commandBearingLock)
        #expect(json(.calibrate(reset: false)) == #"{"action":"start"}"#)
        #expect(json(.calibrate(reset: true)) == #"{"action":"reset"}"#)
        #expect(DeviceCommand.calibrate(reset: true).topic == .commandCalibrate)
        #expect(json(.north(.true)) == #"{"north":"true"}"#)
        #expect(json(.north(.magnetic)) == #"{"north":"magnetic"}"#)
        #expect(DeviceCommand.north(.magnetic).topic == .commandSettings)
        #expect(json(.resetPosition) == "{}")
        #expect(DeviceCommand.resetPosition.topic == .commandResetPosition)
        #expect(Topics().device("walker-1", DeviceCommand.resetPosition.topic) == "stepcompass/walker-1/cmd/reset-position")
    }

    @Test(
        "bearings outside 0..<360 and thresholds outside (0, 180] are refused before sending",
        arguments: [
            DeviceCommand.lock(bearing: 360, threshold: nil), .lock(bearing: -0.5, threshold: nil), .lock(bearing: .nan, threshold: nil),
            .lock(bearing: .infinity, threshold: nil), .lock(bearing: 10, threshold: 0), .lock(bearing: 10, threshold: -3),
            .lock(bearing: 10, threshold: 181), .lock(bearing: nil, threshold: .nan),
        ])
    func invalidLock(command: DeviceCommand) {
        #expect(throws: InputError.self) { try command.validate() }
        do { try command.validate() } catch {
            #expect(error.message.hasPrefix("`bearing` must be") || error.message.hasPrefix("`threshold` must be"))
        }
    }

    @Test(
        "valid locks pass",
        arguments: [
            DeviceCommand.lock(bearing: 0, threshold: nil), .lock(bearing: 359.99, threshold: 180), .lock(bearing: nil, threshold: 0.5),
        ])
    func validLock(command: DeviceCommand) throws {
        try command.validate()
    }

    /// Found by FuzzCommands: on Linux every `NSNumber` of 0 or 1 casts to `Bool`, so the decoder refused
    /// `{"action":"lock","bearing":0}`, the payload of `.lock(bearing: 0, threshold: nil)`, as a boolean.
    @Test("a lock reads back from its own payload, bearings and thresholds of 0 and 1 too; true and false are refused")
    func lockReadsBack() throws {
        for command in [DeviceCommand.lock(bearing: 0, threshold: nil), .lock(bearing: 1, threshold: 1), .lock(bearing: 45, threshold: 10)] {
            #expect(try DeviceCommand.decode(.commandBearingLock, json: command.payload) == command)
        }
        for body in [#"{"action":"lock","bearing":true}"#, #"{"action":"lock","threshold":false}"#] {
            #expect(throws: InputError.self) { try DeviceCommand.decode(.commandBearingLock, json: Data(body.utf8)) }
        }
    }

    @Test("the summary says what was sent")
    func summaries() {
        #expect(DeviceCommand.lock(bearing: 45, threshold: 10).summary(device: "walker-1") == "locked walker-1 at 45° (threshold 10°)")
        #expect(DeviceCommand.lock(bearing: 12.5, threshold: nil).summary(device: "w") == "locked w at 12.5°")
        #expect(DeviceCommand.lock(bearing: nil, threshold: nil).summary(device: "w") == "locked w at its current heading")
        #expect(DeviceCommand.unlock.summary(device: "w") == "unlocked w")
        #expect(DeviceCommand.north(.magnetic).summary(device: "w") == "set w to magnetic north")
        #expect(DeviceCommand.resetPosition.summary(device: "w") == "reset the position of w to (0, 0)")
    }

    @Test("the broker-unreachable message says where and what to do")
    func brokerUnreachable() {
        let error = StepCompassClientError.brokerUnreachable(host: "localhost", port: 1883, reason: "Connection refused")
        #expect(
            error.message
                == "cannot reach the MQTT broker at localhost:1883 (connection refused). Start it (make run) or set --mqtt-host/--mqtt-port (MQTT_HOST/MQTT_PORT)."
        )
        #expect(error.exitCode == 69)
        let denied = StepCompassClientError.brokerUnreachable(host: "h", port: 1, reason: "the broker refused the connection: Not authorized")
        #expect(denied.message.contains("--mqtt-username/--mqtt-password"))
        #expect(StepCompassClientError.invalidInput("x").exitCode == 1)
    }
}
