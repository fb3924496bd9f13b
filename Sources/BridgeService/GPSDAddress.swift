/// A gpsd address, `HOST:PORT` (`[::1]:2947` for IPv6).
struct GPSDAddress: Sendable, Hashable {
    let host: String
    let port: Int

    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (1...65_535).contains(port) else { return nil }
        self.host = host
        self.port = port
    }
}
