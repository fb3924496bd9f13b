/// Where the markers come from: an `http(s)://` URL or a file path (`--source`).
enum MarkerSource: Sendable, Hashable, CustomStringConvertible {
    case url(String)
    case file(String)

    /// Parses the configured text; nil when it is empty or another URL scheme.
    init?(_ text: String) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            self = .url(text)
        } else if lowered.hasPrefix("file://") {
            let path = String(text.dropFirst("file://".count))
            guard !path.isEmpty else { return nil }
            self = .file(path)
        } else if text.isEmpty || text.contains("://") {
            return nil
        } else {
            self = .file(text)
        }
    }

    var description: String {
        switch self {
        case .url(let url): url
        case .file(let path): path
        }
    }
}
