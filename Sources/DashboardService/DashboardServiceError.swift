/// Why the dashboard cannot start.
public enum DashboardServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An option is out of range.
    case invalidConfiguration(String)
    /// The page's files are not next to the executable.
    case pageMissing(String)
    /// The HTTP port could not be opened.
    case cannotListen(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let message): message
        case .pageMissing(let message): message
        case .cannotListen(let host, let port, let reason):
            "cannot listen on \(host):\(port): \(reason). Choose another port with --http-port (HTTP_PORT)."
        }
    }
}
