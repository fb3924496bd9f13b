/// The device's motion permission (`stepcompass/{device}/permissions`, field `motion`), and what a person is told.
public enum MotionAuthorization: String, Sendable, Hashable, CaseIterable, Codable {
    case authorized, denied, notDetermined, restricted, unavailable

    /// Whether a suggestion may be made.
    public var allowsSuggestion: Bool { self == .authorized }

    /// Why there is no suggestion, and what to do about it; nil when authorized.
    public var guidance: String? {
        switch self {
        case .authorized:
            nil
        case .notDetermined:
            "Allow motion access when the app asks (Motion & Fitness on iPhone, Physical activity on Android) to get music that fits your steps."
        case .denied:
            "Motion access is off. Turn it on in Settings: on iPhone Privacy & Security → Motion & Fitness, on Android Apps → the app → Permissions → Physical activity."
        case .restricted:
            "Motion access is restricted on this device (Screen Time or a device policy). Whoever manages the device can allow Motion & Fitness or Physical activity."
        case .unavailable:
            "This device has no step counter, so there are no steps to suggest music for."
        }
    }
}
