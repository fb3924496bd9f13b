import Foundation
import PositionKit
import ServiceRuntime

/// `stepcompass/{device}/steps`: the cumulative count of the device's session.
///
/// `steps` is decoded as a number and then checked, so that `2.5` or `-4` get a reason that names the rule.
struct StepsPayload: Decodable {
    let steps: Double
    let timestamp: String?
    /// The session's cumulative distance in metres, from the device's or bridge's step-length model (optional; used
    /// with `--step-length estimated`). Read leniently: anything but a finite, non-negative number counts as absent.
    let distance: LenientNumber?

    /// The reported distance, if usable.
    var reportedDistance: Double? {
        guard let value = distance?.value, value.isFinite, value >= 0 else { return nil }
        return value
    }

    /// The count as an integer.
    /// - Throws: `InputError` for a negative, fractional, non-finite or too large count.
    func count() throws(InputError) -> Int {
        Int(try FieldCheck.stepCount(steps))
    }
}

/// `stepcompass/{device}/heading`, reduced to what the calculator needs.
///
/// `heading` may be null or absent when the compass has no heading to give (`status` `noSensor` or
/// `noPermission`); such a message is not an error and changes nothing.
struct HeadingPayload: Decodable {
    let heading: Double?
    let status: String?
    let timestamp: String?
    /// The direction the device's owner walks (the compass's optional field), used with `--heading-source walking`.
    /// Read leniently: a value that is not a number counts as absent.
    let walkingDirection: LenientNumber?
}

/// An optional number field used only when it is one: anything else decodes as no value, so a message whose
/// contract fields are fine is never rejected for it.
struct LenientNumber: Decodable {
    let value: Double?

    init(from decoder: any Decoder) throws {
        value = try? decoder.singleValueContainer().decode(Double.self)
    }
}

/// `stepcompass/{device}/cmd/reset-position`: an empty object; unknown fields are ignored.
struct ResetPayload: Decodable {}

/// `stepcompass/{device}/position` as published: the calculator's state plus a timestamp.
///
/// `heading` is written as an explicit `null` before the first batch, so the payload always has every field. With
/// `--step-length estimated` two more fields carry what a restart needs: `pendingDistance` (metres of the steps not
/// yet applied in a batch) and `sessionDistance` (the device's last reported session distance); they are absent
/// otherwise.
struct PositionPayload: Encodable {
    let timestamp: String
    let state: PositionState

    private enum CodingKeys: String, CodingKey {
        case timestamp, x, y, steps, sessionSteps, distance, heading, updates, pendingDistance, sessionDistance
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(state.x, forKey: .x)
        try container.encode(state.y, forKey: .y)
        try container.encode(state.steps, forKey: .steps)
        try container.encode(state.sessionSteps, forKey: .sessionSteps)
        try container.encode(state.distance, forKey: .distance)
        if let heading = state.heading {
            try container.encode(heading, forKey: .heading)
        } else {
            try container.encodeNil(forKey: .heading)
        }
        try container.encode(state.updates, forKey: .updates)
        try container.encodeIfPresent(state.pendingDistance, forKey: .pendingDistance)
        try container.encodeIfPresent(state.sessionDistance, forKey: .sessionDistance)
    }

    /// The JSON bytes, keys sorted so that equal states give equal payloads.
    func encoded() throws -> Data {
        try Self.encoder.encode(self)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}
