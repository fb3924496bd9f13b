import Foundation
import FuzzSupport
import StepCompassContract

/// libFuzzer target: the device messages the services read with `PayloadDecoder` besides `imu` and `steps`
/// (`FuzzFastReaders`): `location` (compass, markers, journal), `permissions` (compass, activity, journal),
/// `position` (journal; the position service reads its own retained one back), `heading` (position),
/// `calibration` and `bearing-lock` (the compass reads its own retained ones back).
///
/// Properties: decoding never traps and only throws `InputError`, nor do the checks the services run next (the
/// timestamp, the permission values, `FieldCheck`); every message read is written and read back unchanged
/// (`Fuzz.requireRoundTrip`); and the hand-written writers (`LocationMessage.json`, `PermissionsMessage.json`,
/// `HeadingMessage.jsonPayload()`) give text that reads back as the same message.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    Fuzz.run(start, count) { bytes in
        let payload = Data(bytes)
        DeviceMessageProperties.location(payload)
        DeviceMessageProperties.permissions(payload)
        DeviceMessageProperties.others(payload)
    }
}

enum DeviceMessageProperties {
    static let decoder = PayloadDecoder()

    static func location(_ payload: Data) {
        guard let location = try? decoder.decode(LocationMessage.self, from: payload) else { return }
        Fuzz.requireRoundTrip(location, "location") { try decoder.decode(LocationMessage.self, from: $0) }
        _ = try? Timestamp.date(location.timestamp)
        _ = try? FieldCheck.finite(location.latitude, "latitude", in: -90...90)
        _ = try? FieldCheck.finite(location.longitude, "longitude", in: -180...180)
        if let altitude = location.altitude { _ = try? FieldCheck.finite(altitude, "altitude", in: FieldCheck.altitudes) }
        // The bridge's writer: every field is finite here, so it writes them all.
        guard location.timestamp.map(Fuzz.isPlain) != false, let json = location.json else { return }
        let again = try? decoder.decode(LocationMessage.self, from: Data(json.utf8))
        Fuzz.require(again == location, "location \(location) was written as \(json), read back as \(String(describing: again))")
    }

    static func permissions(_ payload: Data) {
        guard let permissions = try? decoder.decode(PermissionsMessage.self, from: payload) else { return }
        Fuzz.requireRoundTrip(permissions, "permissions") { try decoder.decode(PermissionsMessage.self, from: $0) }
        if let motion = permissions.motion { _ = try? SensorPermission.parse(motion, field: "motion") }
        if let location = permissions.location { _ = try? SensorPermission.parse(location, field: "location") }
        guard [permissions.motion, permissions.location, permissions.timeZone].allSatisfy({ $0.map(Fuzz.isPlain) != false }) else { return }
        let json = permissions.json
        let again = try? decoder.decode(PermissionsMessage.self, from: Data(json.utf8))
        Fuzz.require(again == permissions, "permissions \(permissions) were written as \(json), read back as \(String(describing: again))")
    }

    static func others(_ payload: Data) {
        if let position = try? decoder.decode(PositionMessage.self, from: payload) {
            Fuzz.requireRoundTrip(position, "position") { try decoder.decode(PositionMessage.self, from: $0) }
            _ = try? position.encoded()
            _ = try? Timestamp.date(position.timestamp)
        }
        if let heading = try? decoder.decode(HeadingMessage.self, from: payload) {
            Fuzz.requireRoundTrip(heading, "heading") { try decoder.decode(HeadingMessage.self, from: $0) }
            _ = heading.headingStatus
            _ = heading.northReference
            if let value = heading.heading { _ = try? FieldCheck.finite(value, "heading", in: 0...360) }
            if let json = heading.jsonPayload() {
                let again = try? decoder.decode(HeadingMessage.self, from: json)
                Fuzz.require(again == heading, "heading \(heading) was written as \(Fuzz.show(json)), read back as \(String(describing: again))")
            }
        }
        if let calibration = try? decoder.decode(CalibrationMessage.self, from: payload) {
            Fuzz.requireRoundTrip(calibration, "calibration") { try decoder.decode(CalibrationMessage.self, from: $0) }
            Fuzz.require(calibration.softIron.map { $0.count == 3 } != false, "a soft-iron matrix of \(calibration.softIron?.count ?? 0) rows")
        }
        if let lock = try? decoder.decode(BearingLockMessage.self, from: payload) {
            Fuzz.requireRoundTrip(lock, "bearing lock") { try decoder.decode(BearingLockMessage.self, from: $0) }
        }
    }
}
