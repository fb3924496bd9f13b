public import Foundation
import StepCompassContract

/// OwnTracks messages as published on `owntracks/USER/DEVICE`
/// (`{"_type":"location","lat","lon","alt","acc","vac","vel","cog","tst",…}`): `lat`/`lon` degrees,
/// `alt` metres, `acc`/`vac` metres, `vel` km/h (converted to m/s), `cog` degrees, `tst` epoch seconds.
public enum OwnTracksMessage {
    /// Decodes a message: the location for `_type` `location`, `nil` for any other `_type`
    /// (`transition`, `waypoint`, `lwt`, `card`…). A body that is not a JSON object, has no `_type`, or a
    /// location without usable `lat`/`lon`/`tst` is an error with a one-line reason.
    public static func decode(_ body: Data) throws(PhoneFormatError) -> LocationSample? {
        guard !body.isEmpty else { throw PhoneFormatError("body is empty") }
        guard body.count <= 1 << 20 else { throw PhoneFormatError("body is too large (\(body.count) bytes; limit \(1 << 20))") }
        guard let object = try JSONValue.parse(body).object else { throw PhoneFormatError("body is not a JSON object") }
        guard let type = object["_type"] else { throw PhoneFormatError("_type is missing") }
        guard let typeName = type.string else { throw PhoneFormatError("_type is not a string") }
        guard typeName == "location" else { return nil }
        func field(_ name: String) -> FieldLookup { FieldLookup(object[name], lenient: false) }
        let timestamp = try field("tst").required("tst")
        guard timestamp > 0 else { throw PhoneFormatError("tst is not positive (\(timestamp))") }
        let kilometresPerHour = try field("vel").optional("vel")
        return try LocationSample.validated(
            timestamp: timestamp,
            latitude: try field("lat").required("lat"),
            longitude: try field("lon").required("lon"),
            altitude: try field("alt").optional("alt"),
            horizontalAccuracy: try field("acc").optional("acc"),
            verticalAccuracy: try field("vac").optional("vac"),
            speed: kilometresPerHour.map { $0 / 3.6 },
            course: try field("cog").optional("cog"),
            names: ("lat", "lon")
        )
    }

    /// Decodes a message given as bytes.
    public static func decode(_ body: [UInt8]) throws(PhoneFormatError) -> LocationSample? {
        try decode(Data(body))
    }

    /// Decodes a message given as text.
    public static func decode(_ body: String) throws(PhoneFormatError) -> LocationSample? {
        try decode(Data(body.utf8))
    }

    /// The user and device of an `owntracks/USER/DEVICE` topic (extra levels such as `/event` are
    /// ignored), or `nil` for other topics.
    public static func topicParts(_ topic: String) -> (user: String, device: String)? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 3, levels[0] == "owntracks", !levels[1].isEmpty, !levels[2].isEmpty else { return nil }
        return (String(levels[1]), String(levels[2]))
    }

    /// The device id for an OwnTracks topic (`USER-DEVICE` made a valid device id), or `nil`.
    public static func deviceID(topic: String) -> String? {
        topicParts(topic).map { DeviceID.sanitized("\($0.user)-\($0.device)") }
    }
}
