/// The contract's heading `status`: whether the numbers can be trusted now.
public enum HeadingStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Fresh samples are arriving.
    case ok
    /// No IMU sample for `--stale-after` seconds: the heading is the last known one.
    case stale
    /// Motion access is denied or restricted on the device.
    case noPermission
    /// The device has no motion sensor.
    case noSensor
}
