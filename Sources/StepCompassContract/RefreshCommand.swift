public import Foundation

/// The payload of `stepcompass/markers/cmd/refresh`: `{}` (unknown fields are ignored). Sent by the dashboard and
/// the client, read by `stepcompass-markers`, which fetches its source again.
public struct RefreshCommand: Codable, Sendable, Hashable {
    public init() {}

    /// The command as sent: `{}`.
    public static let payload = Data("{}".utf8)
}
