import Foundation
import StepCompassContract

/// One gpsd JSON report (one per line), as far as a position consumer cares.
///
/// `TPV` (time-position-velocity): `mode` 0/1 no fix, 2 2D, 3 3D; `time` ISO 8601; `lat`/`lon`
/// degrees; `altHAE` (else `alt`, else `altMSL`) metres, 3D fixes only; `eph` (else the larger of
/// `epx`/`epy`) and `epv` metres; `speed` m/s; `track` degrees true. Other classes (`VERSION`,
/// `DEVICES`, `DEVICE`, `WATCH`, `SKY`, `GST`, `ATT`, `PPS`, `TOFF`, `ERROR`…) are ``ignored(_:)``.
public enum GPSDReport: Sendable, Hashable {
    /// A 2D or 3D fix.
    case fix(LocationSample)
    /// A TPV report without a fix (mode 0 or 1); the time when the report had one.
    case noFix(time: Double?)
    /// A report of another class, named.
    case ignored(String)

    /// The command that makes gpsd stream JSON reports; send it followed by a newline.
    public static let watchCommand = #"?WATCH={"enable":true,"json":true}"#

    /// Decodes one line.
    public static func decode(line: String) throws(PhoneFormatError) -> GPSDReport {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw PhoneFormatError("line is empty") }
        guard trimmed.utf8.count <= 1 << 16 else { throw PhoneFormatError("line is too long (\(trimmed.utf8.count) bytes)") }
        guard let object = try JSONValue.parse(Data(trimmed.utf8)).object else { throw PhoneFormatError("report is not a JSON object") }
        guard let className = object["class"]?.string else { throw PhoneFormatError("class is missing") }
        guard className == "TPV" else { return .ignored(className) }
        func field(_ name: String) -> FieldLookup { FieldLookup(object[name], lenient: false) }
        let mode = try field("mode").optional("mode") ?? 0
        var time: Double?
        if let text = object["time"] {
            guard let string = text.string, let parsed = Timestamp.secondsSince1970(string) else {
                throw PhoneFormatError("time is not an ISO 8601 timestamp")
            }
            time = parsed
        }
        guard mode >= 2 else { return .noFix(time: time) }
        guard let time else { throw PhoneFormatError("TPV with a fix has no time") }
        var altitude: Double?
        if mode >= 3 {
            let ellipsoidal = try field("altHAE").optional("altHAE")
            let legacy = try field("alt").optional("alt")
            let meanSeaLevel = try field("altMSL").optional("altMSL")
            altitude = ellipsoidal ?? legacy ?? meanSeaLevel
        }
        var horizontal = try field("eph").optional("eph")
        if horizontal == nil {
            let errors = [try field("epx").optional("epx"), try field("epy").optional("epy")].compactMap { $0 }
            horizontal = errors.max()
        }
        let location = try LocationSample.validated(
            timestamp: time,
            latitude: try field("lat").required("lat"),
            longitude: try field("lon").required("lon"),
            altitude: altitude,
            horizontalAccuracy: horizontal,
            verticalAccuracy: mode >= 3 ? try field("epv").optional("epv") : nil,
            speed: try field("speed").optional("speed"),
            course: try field("track").optional("track"),
            names: ("lat", "lon")
        )
        return .fix(location)
    }
}

/// Splits a gpsd byte stream into lines, keeping a partial last line for the next chunk.
public struct GPSDLineBuffer: Sendable {
    private var pending: [UInt8] = []
    /// Longest line kept; longer lines are discarded (gpsd's are far shorter).
    public let maximumLineLength: Int
    /// Lines discarded for being too long.
    public private(set) var discardedLines = 0
    private var discarding = false

    /// Creates a buffer.
    public init(maximumLineLength: Int = 1 << 16) {
        self.maximumLineLength = maximumLineLength
    }

    /// Appends received bytes and returns the complete lines (without the newline, `\r` trimmed).
    public mutating func append(_ bytes: [UInt8]) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            if byte == 10 {
                if discarding {
                    discarding = false
                } else {
                    if pending.last == 13 { pending.removeLast() }
                    if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
                }
                pending.removeAll(keepingCapacity: true)
            } else if !discarding {
                pending.append(byte)
                if pending.count > maximumLineLength {
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                    discardedLines += 1
                }
            }
        }
        return lines
    }
}
