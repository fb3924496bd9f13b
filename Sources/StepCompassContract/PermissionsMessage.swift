/// The payload of `stepcompass/{device}/permissions` (retained): whether the app may use motion and location
/// (``SensorPermission``'s values), and the device's IANA time zone (`timeZone`, optional). Written by the simulator
/// and the bridge, read by the compass (`motion`), the journal (`location`), the activity service (`motion`,
/// `timeZone`), the dashboard and the client.
///
/// The values are kept as text: each reader parses the field it uses (``SensorPermission/parse(_:field:)``) and
/// the dashboard shows an unknown value as it is.
public struct PermissionsMessage: Sendable, Hashable, Codable {
    /// `authorized`, `denied`, `notDetermined`, `restricted` or `unavailable`.
    public var motion: String?
    /// `authorized`, `denied`, `notDetermined`, `restricted` or `unavailable`.
    public var location: String?
    /// The device's IANA time zone (`Europe/Berlin`).
    public var timeZone: String?

    public init(motion: String?, location: String?, timeZone: String? = nil) {
        self.motion = motion
        self.location = location
        self.timeZone = timeZone
    }

    /// The message as JSON text, written by hand as the bridge has always written it: `{"motion", "location",
    /// "timeZone"?}` (absent fields left out). The values must be plain ASCII without quotes (the contract's values
    /// and IANA names are).
    public var json: String {
        var fields: [String] = []
        if let motion { fields.append(#""motion":"\#(motion)""#) }
        if let location { fields.append(#""location":"\#(location)""#) }
        if let timeZone { fields.append(#""timeZone":"\#(timeZone)""#) }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
