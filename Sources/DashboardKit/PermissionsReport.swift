/// A device's retained `permissions` message: whether motion and location may be read.
public struct PermissionsReport: Sendable, Hashable, Decodable {
    /// `authorized`, `denied`, `notDetermined`, `restricted` or `unavailable`.
    public var motion: String?
    public var location: String?

    public init(motion: String?, location: String?) {
        self.motion = motion
        self.location = location
    }
}
