public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL server for tests and load tools: `initdb` in a temporary folder, `postgres` on a free
/// loopback port below the ephemeral range, its socket in that folder, trust authentication for the user `postgres`.
/// As root the server runs as the `postgres` user (it refuses to run as root), the folder owned by it.
public final class PostgresServerProcess: @unchecked Sendable {
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Debian's binaries, or the first folder on PATH with `postgres` and `initdb`.
    public static var binDirectory: String? {
        let fileManager = FileManager.default
        for version in ["17", "16", "15", "14", "13"] {
            let folder = "/usr/lib/postgresql/\(version)/bin"
            if fileManager.isExecutableFile(atPath: "\(folder)/postgres") { return folder }
        }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            if fileManager.isExecutableFile(atPath: "\(folder)/postgres"), fileManager.isExecutableFile(atPath: "\(folder)/initdb") {
                return String(folder)
            }
        }
        return nil
    }

    public let port: Int
    public let directory: URL
    private(set) var process: ChildProcess?
    private let runAs: String?

    /// `postgres://postgres@127.0.0.1:PORT/postgres`.
    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// Whether the PostgreSQL tests run: always in CI (`CI=true`), where a missing server fails them, and elsewhere
    /// only when PostgreSQL is installed.
    public static var shouldRun: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || binDirectory != nil
    }

    /// Initialises a cluster and starts the server (fsync on, as in production, unless `fsync` is false; tests turn
    /// it off); returns once it accepts connections.
    public static func launch(fsync: Bool = true) async throws -> PostgresServerProcess {
        let server = try PostgresServerProcess()
        try await server.start(fsync: fsync)
        return server
    }

    private init() throws {
        guard Self.binDirectory != nil else {
            throw StartError(description: "PostgreSQL is not installed (sudo apt-get install postgresql)")
        }
        port = try MosquittoBrokerProcess.freePort()
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("stepcompass-buslab-pg-\(UUID().uuidString.prefix(8))")
        runAs = geteuid() == 0 ? "postgres" : nil
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let runAs {
            guard let user = getpwnam(runAs) else {
                throw StartError(description: "running as root needs the user '\(runAs)' (Debian's postgresql package creates it)")
            }
            chown(directory.path, user.pointee.pw_uid, user.pointee.pw_gid)
        }
    }

    private func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        guard let runAs else { return (executable, arguments) }
        let runuser = FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") ? "/usr/sbin/runuser" : "/sbin/runuser"
        return (runuser, ["-u", runAs, "--", executable] + arguments)
    }

    private func start(fsync: Bool) async throws {
        let bin = Self.binDirectory!
        let data = directory.appendingPathComponent("data").path
        let (initExecutable, initArguments) = command(
            "\(bin)/initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"])
        let initdb = try await ChildProcess(
            executable: initExecutable, arguments: initArguments, outputFile: directory.appendingPathComponent("initdb.log"))
        guard await initdb.waitForExit(timeout: .seconds(120)) == 0 else {
            throw StartError(description: "initdb failed: \(initdb.output)")
        }
        let (executable, arguments) = command(
            "\(bin)/postgres",
            [
                "-D", data, "-p", "\(port)", "-k", directory.path, "-h", "127.0.0.1", "-c", "fsync=\(fsync ? "on" : "off")",
                "-c", "max_connections=50",
            ])
        let process = try await ChildProcess(
            executable: executable, arguments: arguments, outputFile: directory.appendingPathComponent("postgres.log"))
        self.process = process
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while ContinuousClock.now < deadline {
            if !process.isRunning { throw StartError(description: "postgres exited: \(process.output)") }
            if process.output.contains("ready to accept connections"), MosquittoBrokerProcess.canConnect(port: port) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw StartError(description: "postgres did not come up within 60 s: \(process.output)")
    }

    /// Stops the server (a fast shutdown, then SIGKILL) and deletes its folder.
    public func stop() async {
        if let process {
            let (executable, arguments) = command(
                "\(Self.binDirectory ?? "")/pg_ctl", ["-D", directory.appendingPathComponent("data").path, "-w", "stop", "-m", "fast"])
            if let control = try? await ChildProcess(
                executable: executable, arguments: arguments, outputFile: directory.appendingPathComponent("pg_ctl.log"))
            {
                _ = await control.waitForExit(timeout: .seconds(30))
            }
            if await process.waitForExit(timeout: .seconds(30)) == nil { process.signal(SIGKILL) }
            self.process = nil
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
