/// The bridge's errors: a bad setting, or a listener that could not open.
public enum BridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A setting is out of range or malformed; the message names the option.
    case invalidConfiguration(String)
    /// The HTTP push listener could not open.
    case cannotListen(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let message): message
        case .cannotListen(let host, let port, let reason):
            "cannot listen on \(host):\(port): \(reason). Choose another port with --http-port (HTTP_PORT), or -1 to turn the HTTP push off."
        }
    }
}
