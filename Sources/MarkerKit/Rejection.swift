/// One feature of the source that did not become a marker, and why.
public struct Rejection: Sendable, Hashable, Codable {
    /// The feature's position in the `features` array, from 0.
    public var index: Int
    /// The feature's id when one could be read, so a user can find it in the source.
    public var id: String?
    /// The machine-readable reason, used for counting.
    public var reason: RejectionReason
    /// Detail for people, e.g. `latitude -122.99 out of range (latitude/longitude swapped?)`.
    public var message: String

    public init(index: Int, id: String?, reason: RejectionReason, message: String) {
        self.index = index
        self.id = id
        self.reason = reason
        self.message = message
    }
}
