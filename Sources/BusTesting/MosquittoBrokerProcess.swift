import Bus
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real `mosquitto` broker for tests, on a free loopback port picked at run time.
///
/// It writes a temporary configuration (loopback listener, anonymous access unless the extra
/// configuration says otherwise, `set_tcp_nodelay true`, persistence in a temporary folder), waits until
/// the port accepts connections, and is stopped on every path by ``withBroker(configuration:_:)``.
/// ``restartAndWait()`` keeps the port and the persistence file, as a broker restart in production would.
public final class MosquittoBrokerProcess: @unchecked Sendable {
    /// Why a broker could not be started.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port the broker listens on (127.0.0.1).
    public private(set) var port: Int
    private var started = false
    /// The folder holding the configuration, persistence and log.
    public let directory: URL
    private let extraConfiguration: String
    private let lock = NSLock()
    private var process: ChildProcess?

    /// The path of the `mosquitto` executable, if it is installed.
    public static var executable: String? {
        let candidates =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin"]
        for folder in candidates where FileManager.default.isExecutableFile(atPath: folder + "/mosquitto") {
            return folder + "/mosquitto"
        }
        return nil
    }

    /// Whether tests that need a broker should run: always in CI (`CI=true`), where a missing broker
    /// must fail the run rather than skip it, and elsewhere only when `mosquitto` is installed.
    public static var shouldRunBrokerTests: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || executable != nil
    }

    /// Starts a broker without blocking a thread of Swift's cooperative pool while it comes up.
    /// - Parameter configuration: Extra `mosquitto.conf` lines (for example the project's tuning).
    public static func launch(configuration: String = "") async throws -> MosquittoBrokerProcess {
        let broker = try MosquittoBrokerProcess(configuration: configuration)
        try await broker.startAndWait()
        return broker
    }

    private init(configuration: String) throws {
        guard Self.executable != nil else {
            throw StartError(
                description:
                    "mosquitto is not installed: run `make test` (it installs it) or `sudo apt-get install mosquitto`")
        }
        self.port = try Self.freePort()
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-broker-\(UUID().uuidString)")
        self.extraConfiguration = configuration
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Ports handed out in this process (``freePort()``) and not given back (only a broker gives its port back). Between
    /// the check that a port is free and a server binding it, a parallel test could otherwise be given the same port
    /// and end up talking to another test's server.
    private static let reservedPorts = LockedValue<Set<Int>>([])

    deinit {
        stop()
        _ = Self.reservedPorts.withLock { $0.remove(port) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The broker's log so far (for failure messages).
    public var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? ""
    }

    /// What a failure message needs when a client cannot reach this broker: whether mosquitto still runs and in which
    /// kernel state (`/proc`), which processes hold sockets on its port (`ss`), and the end of its log.
    public func diagnosis() -> String {
        let process = lock.withLock { self.process }
        var lines: [String] = []
        if let process {
            let stat = (try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8)) ?? "gone"
            let wchan = (try? String(contentsOfFile: "/proc/\(process.pid)/wchan", encoding: .utf8)) ?? "?"
            lines.append("mosquitto pid \(process.pid), running \(process.isRunning), stat \(stat.prefix(120)), wchan \(wchan)")
        } else {
            lines.append("mosquitto not running (stopped or never started)")
        }
        let ss = Process()
        ss.executableURL = URL(fileURLWithPath: "/usr/bin/ss")
        ss.arguments = ["-tanp", "( sport = :\(port) or dport = :\(port) )"]
        let pipe = Pipe()
        ss.standardOutput = pipe
        ss.standardError = pipe
        if (try? ss.run()) != nil {
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            ss.waitUntilExit()
            lines.append("sockets on port \(port):\n" + String(decoding: output.prefix(4_000), as: UTF8.self))
        }
        lines.append("log: " + String(log.suffix(2_000)))
        return lines.joined(separator: "\n")
    }

    /// Stops the broker (SIGTERM, then waits), keeping its persistence for a ``startAndWait()``. Blocks the
    /// calling thread briefly (it is what `deinit` does); in async code use ``shutdown()``.
    public func stop() {
        guard let process = takeProcess() else { return }
        process.signal(SIGTERM)
        for _ in 0..<500 where process.isRunning { usleep(10_000) }
        process.signal(SIGKILL)
    }

    private func takeProcess() -> ChildProcess? {
        lock.withLock {
            defer { process = nil }
            return process
        }
    }

    /// Stops the broker (SIGTERM) without blocking a thread of Swift's cooperative pool while it exits.
    public func shutdown() async {
        guard let process = takeProcess() else { return }
        process.signal(SIGTERM)
        if await process.waitForExit(timeout: .seconds(5)) == nil {
            process.signal(SIGKILL)
            _ = await process.waitForExit(timeout: .seconds(5))
        }
    }

    /// Kills the broker with SIGKILL, as a crash would (no clean shutdown, persistence as last saved).
    public func kill9() async {
        guard let process = takeProcess() else { return }
        process.signal(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(5))
    }

    /// Starts the broker (again) and waits until it accepts connections, without blocking a thread.
    public func startAndWait() async throws {
        for attempt in 1...5 {
            let process = try await spawn()
            let deadline = ContinuousClock.now + .seconds(10)
            do {
                // At least 10 s and at least 500 looks: on a loaded 2-core machine CPU-bound tests can hold the
                // cooperative pool for seconds, and a wait that only watched the clock would give up unchecked.
                var looks = 0
                while ContinuousClock.now < deadline || looks < 500 {
                    if try listening(process) {
                        started = true
                        return
                    }
                    looks += 1
                    try await Task.sleep(for: .milliseconds(20))
                }
            } catch let error as StartError where !started && attempt < 5 && error.description.contains("Address already in use") {
                try movePort()
                continue
            }
            throw StartError(description: "mosquitto did not accept connections on port \(port) within 10 s: \(log)")
        }
    }

    /// Takes another port when the first one was taken between the check and mosquitto's bind.
    private func movePort() throws {
        let old = port
        port = try Self.freePort()
        _ = Self.reservedPorts.withLock { $0.remove(old) }
    }

    /// Stops and starts the broker on the same port with the same persistence, without blocking a thread.
    public func restartAndWait() async throws {
        await shutdown()
        try await startAndWait()
    }

    /// Writes the configuration and starts mosquitto. As root, mosquitto would drop to the `mosquitto`
    /// user after opening its files, and could then not write its persistence or reopen its log in a
    /// folder root made: `user root` keeps it as it is.
    private func spawn() async throws -> ChildProcess {
        let configuration = """
            listener \(port) 127.0.0.1
            set_tcp_nodelay true
            persistence true
            persistence_location \(directory.path)/
            log_dest file \(directory.path)/mosquitto.log
            log_type error
            log_type warning
            log_type notice
            \(extraConfiguration.contains("allow_anonymous") ? "" : "allow_anonymous true")
            \(geteuid() == 0 ? "user root" : "")
            \(extraConfiguration)
            """
        let file = directory.appendingPathComponent("mosquitto.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        let process = try await ChildProcess(
            executable: Self.executable!, arguments: ["-c", file.path],
            outputFile: directory.appendingPathComponent("mosquitto.out"))
        lock.withLock { self.process = process }
        return process
    }

    private func listening(_ process: ChildProcess) throws -> Bool {
        let running = process.isRunning
        if running && Self.canConnect(port: port) { return true }
        if !running {
            lock.withLock { self.process = nil }
            throw StartError(description: "mosquitto exited at start: \(log) \(process.output)")
        }
        return false
    }

    /// A free TCP port on 127.0.0.1, below Linux's ephemeral range (32768-60999).
    ///
    /// Port 0 would give a port from the ephemeral range, which the kernel also hands out as the source
    /// port of outgoing connections: a test client connecting elsewhere could take it before mosquitto
    /// binds it ("Address already in use"). Ports are drawn at random from 12000-32767 and checked.
    ///
    /// The port is reserved as it is handed out, so no other caller in this process gets it: a test that wants a closed
    /// port keeps a closed one (another test's server once took it, and a "refused" test met a reset), and a server
    /// still starting (PostgreSQL's initdb takes seconds) keeps its own. A broker gives its port back when released.
    public static func freePort() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 12_000...32_767)
            guard reservedPorts.withLock({ $0.insert(port).inserted }) else { continue }
            if canBind(port: port) { return port }
            _ = reservedPorts.withLock { $0.remove(port) }
        }
        throw StartError(description: "could not find a free port in 12000-32767")
    }

    private static func canBind(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Whether a TCP connection to 127.0.0.1:`port` succeeds.
    public static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// Runs `body` with a fresh broker and stops the broker afterwards, whether `body` returns or throws.
public func withBroker<T>(
    configuration: String = "",
    _ body: (MosquittoBrokerProcess) async throws -> T
) async throws -> T {
    let broker = try await MosquittoBrokerProcess.launch(configuration: configuration)
    do {
        let result = try await body(broker)
        await broker.shutdown()
        return result
    } catch {
        await broker.shutdown()
        throw error
    }
}
