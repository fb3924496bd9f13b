public import Configuration
import Foundation

/// The dashboard's settings: where it listens, how much it keeps, and the access token it requires.
public struct DashboardConfiguration: Sendable, Hashable {
    /// The address to listen on. Loopback by default: the dashboard can send commands, so it is only reachable from
    /// elsewhere when asked for (`HTTP_HOST=0.0.0.0`, as in the container), and then only with an access token.
    public var httpHost: String
    /// The HTTP port (the contract's `--http-port`, default 8080); 0 picks a free one.
    public var httpPort: Int
    /// Positions kept per device for the walked path.
    public var pathLimit: Int
    /// Devices tracked at most.
    public var maxDevices: Int
    /// The most events a second per browser for the followed device (coalesced, never queued).
    public var maxEventRate: Double
    /// How long a request to a service (nearest markers, step history, walks) waits for the answer, in seconds.
    public var requestTimeout: Double
    /// The journal's image cache (its `--cache-dir`), served at `/journal/photos/{file}`; relative to the working
    /// directory like the journal's own default.
    public var journalCacheDirectory: String
    /// The page's map: Leaflet's folder and the tile URL (see ``MapSettings``).
    public var map: MapSettings
    /// The access token every API call and the event stream need (`--auth-token`); nil: none (loopback only).
    public var authToken: String?
    /// A file holding the access token (`--auth-token-file`), its content trimmed; instead of ``authToken``.
    public var authTokenFile: String?

    /// The shortest access token accepted.
    public static let minimumTokenLength = 16

    public init(
        httpHost: String = "127.0.0.1", httpPort: Int = 8080, pathLimit: Int = 2_000, maxDevices: Int = 10_000,
        maxEventRate: Double = 10, requestTimeout: Double = 5, journalCacheDirectory: String = ".data/journal/photos",
        map: MapSettings = .defaults, authToken: String? = nil, authTokenFile: String? = nil
    ) {
        self.httpHost = httpHost
        self.httpPort = httpPort
        self.pathLimit = pathLimit
        self.maxDevices = maxDevices
        self.maxEventRate = maxEventRate
        self.requestTimeout = requestTimeout
        self.journalCacheDirectory = journalCacheDirectory
        self.map = map
        self.authToken = authToken
        self.authTokenFile = authTokenFile
    }

    /// Checks every value, naming the option that is wrong, and returns the access token in force (``accessToken()``,
    /// its file read each time; nil: none).
    @discardableResult
    public func validate() throws(DashboardServiceError) -> String? {
        guard !httpHost.isEmpty else { throw .invalidConfiguration("--http-host must not be empty") }
        guard (0...65_535).contains(httpPort) else {
            throw .invalidConfiguration("--http-port must be 0...65535, got \(httpPort)")
        }
        guard pathLimit >= 2 else { throw .invalidConfiguration("--path-limit must be at least 2, got \(pathLimit)") }
        guard maxDevices >= 1 else { throw .invalidConfiguration("--max-devices must be at least 1, got \(maxDevices)") }
        guard maxEventRate.isFinite, maxEventRate > 0, maxEventRate <= 100 else {
            throw .invalidConfiguration("--max-event-rate must be in (0, 100] per second, got \(maxEventRate)")
        }
        guard requestTimeout.isFinite, requestTimeout > 0, requestTimeout <= 60 else {
            throw .invalidConfiguration("--request-timeout must be in (0, 60] seconds, got \(requestTimeout)")
        }
        guard !journalCacheDirectory.isEmpty else { throw .invalidConfiguration("--journal-cache-dir must not be empty") }
        try map.validate()
        let token = try accessToken()
        if token == nil, !Self.isLoopback(httpHost) {
            throw .invalidConfiguration(
                "--http-host \(httpHost) would open the dashboard (its data and its commands) to the network without an access token; "
                    + "set --auth-token (AUTH_TOKEN) or --auth-token-file (AUTH_TOKEN_FILE), or listen on 127.0.0.1")
        }
        return token
    }

    /// The access token in force: ``authToken``, or the content of ``authTokenFile`` trimmed of whitespace and line
    /// ends; nil when neither is set.
    /// - Throws: ``DashboardServiceError/invalidConfiguration(_:)`` naming the option: both set, a file that is missing,
    ///   unreadable or empty, or a token shorter than ``minimumTokenLength`` or with other than printable ASCII.
    public func accessToken() throws(DashboardServiceError) -> String? {
        let token: String
        let option: String
        switch (authToken, authTokenFile) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw .invalidConfiguration(
                "--auth-token (AUTH_TOKEN) and --auth-token-file (AUTH_TOKEN_FILE) are both set: give the token one way")
        case (let value?, nil):
            token = value
            option = "--auth-token"
        case (nil, let path?):
            // At most 4 KiB: a token is a line, and a device such as /dev/zero must not hang the start.
            guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.read(upToCount: 4_097) ?? Data() else {
                let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
                throw .invalidConfiguration("--auth-token-file \(path) \(reason)")
            }
            try? handle.close()
            guard data.count <= 4_096 else {
                throw .invalidConfiguration("--auth-token-file \(path) is larger than 4 KiB: it should hold the token alone")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw .invalidConfiguration("--auth-token-file \(path) is not UTF-8 text")
            }
            token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw .invalidConfiguration("--auth-token-file \(path) is empty") }
            option = "--auth-token-file \(path)"
        }
        guard token.count >= Self.minimumTokenLength else {
            throw .invalidConfiguration(
                "the access token of \(option) is too short: \(token.count) characters, at least \(Self.minimumTokenLength) are needed "
                    + "(e.g. openssl rand -hex 24)")
        }
        guard token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw .invalidConfiguration(
                "the access token of \(option) must be printable ASCII without spaces (letters, digits, punctuation)")
        }
        return token
    }

    /// Whether `host` is a loopback address: `localhost`, 127.0.0.0/8 (four decimal numbers) or `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        let numbers = parts.compactMap { part in part.count <= 3 && part.allSatisfy(\.isASCII) ? UInt8(part) : nil }
        return numbers.count == 4 && numbers[0] == 127
    }
}

extension DashboardConfiguration {
    /// The defaults: 127.0.0.1:8080, 2,000 positions of path, 10,000 devices, 10 updates a second, a 5 s
    /// request timeout, the journal's images in `.data/journal/photos` (the journal's default `--cache-dir`).
    public static let defaults = DashboardConfiguration()

    /// Reads the settings from configuration and validates them.
    ///
    /// Keys (each optional, defaults in ``defaults``): `http.host` (string), `http.port` (int), `path.limit`
    /// (int), `max.devices` (int), `max.event.rate` (double, per second), `request.timeout` (double, seconds),
    /// `journal.cache.dir` (string, env `JOURNAL_CACHE_DIR`), the map's `leaflet.dir` and `tile.url` (``MapSettings``),
    /// and the access token, `auth.token` (secret, env `AUTH_TOKEN`) or `auth.token.file` (env `AUTH_TOKEN_FILE`): an
    /// empty value is none.
    /// - Parameter config: The service's configuration.
    /// - Throws: ``DashboardServiceError/invalidConfiguration(_:)`` naming the option.
    public init(config: ConfigReader) throws(DashboardServiceError) {
        let defaults = Self.defaults
        self.init(
            httpHost: config.string(forKey: "http.host", default: defaults.httpHost),
            httpPort: config.int(forKey: "http.port", default: defaults.httpPort),
            pathLimit: config.int(forKey: "path.limit", default: defaults.pathLimit),
            maxDevices: config.int(forKey: "max.devices", default: defaults.maxDevices),
            maxEventRate: config.double(forKey: "max.event.rate", default: defaults.maxEventRate),
            requestTimeout: config.double(forKey: "request.timeout", default: defaults.requestTimeout),
            journalCacheDirectory: config.string(forKey: "journal.cache.dir", default: defaults.journalCacheDirectory),
            map: try MapSettings(config: config),
            authToken: config.string(forKey: "auth.token", isSecret: true).flatMap { $0.isEmpty ? nil : $0 },
            authTokenFile: config.string(forKey: "auth.token.file").flatMap { $0.isEmpty ? nil : $0 })
        try validate()
    }
}

extension DashboardConfiguration: CustomReflectable {
    /// Every setting, the access token's value hidden (`<redacted>`): ServiceLifecycle logs its services, and so this
    /// configuration, at debug level, and the token must never reach a log.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "httpHost": httpHost, "httpPort": httpPort, "pathLimit": pathLimit, "maxDevices": maxDevices,
                "maxEventRate": maxEventRate, "requestTimeout": requestTimeout, "journalCacheDirectory": journalCacheDirectory,
                "map": map, "authToken": authToken.map { _ in "<redacted>" } as Any, "authTokenFile": authTokenFile as Any,
            ], displayStyle: .struct)
    }
}
