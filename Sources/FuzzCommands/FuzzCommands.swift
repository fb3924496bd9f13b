import Foundation
import FuzzSupport
import StepCompassContract

/// libFuzzer target: every command and request body a service reads: the device commands (`cmd/bearing-lock`,
/// `cmd/calibrate`, `cmd/settings`, `cmd/reset-position`, `cmd/walk`) as they arrive on the bus and as the dashboard's
/// `POST /api/devices/{id}/...` bodies, the markers' `cmd/refresh`, and the `markers/nearest`, `activity/history` and
/// `journal/walks` requests.
///
/// Properties: decoding never traps; a command it reads is valid and is the command its own payload reads back as (on
/// the topic it names), and so is every valid command made in code from the input's numbers and text; the dashboard's
/// path (`DeviceCommand.decode(_:httpBody:)`) never traps (that it reads an empty body as `{}`, which does not depend on
/// the input, is a unit test: `DeviceCommandTests`); and every request it reads
/// is written and read back unchanged (`Fuzz.requireRoundTrip`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    Fuzz.run(start, count) { bytes in
        let payload = Data(bytes)
        CommandProperties.commands(payload)
        CommandProperties.written(bytes)
        CommandProperties.requests(payload)
    }
}

enum CommandProperties {
    static let decoder = PayloadDecoder()
    static let commandTopics: [Topics.DeviceTopic] = [
        .commandBearingLock, .commandCalibrate, .commandSettings, .commandResetPosition, .commandWalk,
    ]

    static func commands(_ payload: Data) {
        for topic in commandTopics {
            // The dashboard's path (`DashboardRoutes.command`): an empty body is `{}`, any other is read as the bus's.
            _ = try? DeviceCommand.decode(topic, httpBody: payload)
            guard let command = try? DeviceCommand.decode(topic, json: payload) else { continue }
            Fuzz.require(command.topic == topic, "\(topic.rawValue): \(Fuzz.show(payload)) was read as \(command) of \(command.topic.rawValue)")
            do {
                try command.validate()
            } catch {
                Fuzz.fail("\(topic.rawValue): \(Fuzz.show(payload)) was read as \(command), which is invalid: \(error)")
            }
            if case .walk(_, let name?) = command {
                Fuzz.require(!name.isEmpty && name.count <= DeviceCommand.maximumWalkName, "walk name '\(name)' of \(name.count) characters")
            }
            let written = command.payload
            let again = Result { () throws(InputError) -> DeviceCommand in try DeviceCommand.decode(topic, json: written) }
            Fuzz.require(
                (try? again.get()).map { same($0, command) } == true,
                "\(topic.rawValue): \(Fuzz.show(payload)) was read as \(command), written as \(Fuzz.show(written)), read back as \(again)")
        }
        // A topic that is not a command's is refused, whatever the body.
        Fuzz.require((try? DeviceCommand.decode(.steps, json: payload)) == nil, "a steps topic was read as a command")
    }

    /// Commands made in code (by the dashboard's page, the client, the tests) from numbers and a name taken from the
    /// input: every valid one is read back as itself from its own payload, so no side refuses what the other writes.
    static func written(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        var numbers: [Double?] = [nil, Double(first), Double(first) / 4, -Double(first)]
        if bytes.count >= 9 {
            numbers.append(Double(bitPattern: bytes[1..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
        }
        var commands: [DeviceCommand] = [.unlock, .calibrate(reset: false), .calibrate(reset: true), .resetPosition, .walk(start: false, name: nil)]
        commands += NorthReference.allCases.map(DeviceCommand.north)
        for bearing in numbers {
            for threshold in numbers { commands.append(.lock(bearing: bearing, threshold: threshold)) }
        }
        let name = String(decoding: bytes.dropFirst(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        commands.append(.walk(start: true, name: name.isEmpty || name.count > DeviceCommand.maximumWalkName ? nil : name))
        for command in commands where (try? command.validate()) != nil {
            let again = Result { () throws(InputError) -> DeviceCommand in try DeviceCommand.decode(command.topic, json: command.payload) }
            Fuzz.require(
                (try? again.get()).map { same($0, command) } == true,
                "\(command) was written as \(Fuzz.show(command.payload)), read back as \(again)")
        }
    }

    /// The same command, but for two faults of JSONSerialization on Linux, which the decoder reads bodies with (both
    /// found by this target; JSONDecoder has neither): it does not round every number correctly
    /// (`1.0387856152602562e-13` reads as `…566e-13`, `6.9843474648476945e-90` as `…686e-90`), so a lock's numbers
    /// need only agree to 12 digits, and it drops a U+FEFF that follows an escape in a string (`"\"\u{FEFF}"`), so a walk's names are
    /// compared without it (and trimmed again, as the decoder trims what it reads). A refused command, another number or another name is still a failure.
    static func same(_ read: DeviceCommand, _ written: DeviceCommand) -> Bool {
        if case .walk(true, let name) = read, case .walk(true, let writtenName) = written {
            func withoutFEFF(_ name: String?) -> String? {
                let kept = String(String.UnicodeScalarView((name ?? "").unicodeScalars.filter { $0 != "\u{FEFF}" }))
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                return kept.isEmpty ? nil : kept
            }
            return withoutFEFF(name) == withoutFEFF(writtenName)
        }
        guard case .lock(let bearing, let threshold) = read, case .lock(let writtenBearing, let writtenThreshold) = written else {
            return read == written
        }
        func close(_ a: Double?, _ b: Double?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return abs(a - b) <= 1e-12 * abs(b)
        }
        return close(bearing, writtenBearing) && close(threshold, writtenThreshold)
    }

    static func requests(_ payload: Data) {
        if let refresh = try? decoder.decode(RefreshCommand.self, from: payload) {
            Fuzz.requireRoundTrip(refresh, "refresh") { try decoder.decode(RefreshCommand.self, from: $0) }
        }
        if let nearest = try? decoder.decode(NearestRequest.self, from: payload) {
            Fuzz.requireRoundTrip(nearest, "nearest request") { try decoder.decode(NearestRequest.self, from: $0) }
        }
        if let history = try? decoder.decode(HistoryRequest.self, from: payload) {
            Fuzz.requireRoundTrip(history, "history request") { try decoder.decode(HistoryRequest.self, from: $0) }
            // What the activity service does next.
            _ = Timestamp.parse(history.from)
            _ = Timestamp.parse(history.to)
            _ = DeviceID.isValid(history.device)
        }
        if let walks = try? decoder.decode(WalksRequest.self, from: payload) {
            Fuzz.requireRoundTrip(walks, "walks request") { try decoder.decode(WalksRequest.self, from: $0) }
            _ = DeviceID.isValid(walks.device)
        }
    }
}
