import BusTesting
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL server for tests: `initdb` in a temporary folder, `postgres` on a free loopback port below
/// the ephemeral range, its socket in that folder, trust authentication for the user `postgres`. As root the server
/// runs as the `postgres` user (it refuses to run as root), the folder owned by it.
final class PostgresServerProcess: @unchecked Sendable {
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// Debian's binaries, or the first `pg_ctl` on PATH.
    static var binDirectory: String? {
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

    /// Whether the PostgreSQL tests run: always in CI (`CI=true`), where a missing server fails them, and elsewhere
    /// only when PostgreSQL is installed.
    static var shouldRun: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || binDirectory != nil
    }

    let port: Int
    let directory: URL
    private var process: ChildProcess?
    private let runAs: String?

    /// `postgres://postgres@127.0.0.1:PORT/postgres`.
    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// Initialises a cluster and starts the server; returns once it accepts connections.
    static func launch() async throws -> PostgresServerProcess {
        let server = try PostgresServerProcess()
        try await server.start()
        return server
    }

    private init() throws {
        guard Self.binDirectory != nil else {
            throw StartError(description: "PostgreSQL is not installed: run `make test` (it installs it) or `sudo apt-get install postgresql`")
        }
        port = try MosquittoBrokerProcess.reserveFreePort()
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("stepcompass-pg-\(UUID().uuidString.prefix(8))")
        runAs = geteuid() == 0 ? "postgres" : nil
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let runAs {
            guard let user = getpwnam(runAs) else {
                throw StartError(description: "running as root needs the user '\(runAs)' (Debian's postgresql package creates it)")
            }
            chown(directory.path, user.pointee.pw_uid, user.pointee.pw_gid)
        }
    }

    deinit {
        if let process, process.isRunning {
            // An immediate shutdown, as the server's user (a signal to `runuser` would not reach it reliably).
            if let control = try? pgControl(["stop", "-m", "immediate"]) {
                for _ in 0..<1_000 where control.isRunning { usleep(10_000) }
            }
            for _ in 0..<500 where process.isRunning { usleep(10_000) }
            if process.isRunning { process.signal(SIGKILL) }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `pg_ctl -D DATA ARGUMENTS` as the server's user.
    private func pgControl(_ arguments: [String]) throws -> ChildProcess {
        let (executable, all) = command("\(Self.binDirectory ?? "")/pg_ctl", ["-D", directory.appendingPathComponent("data").path, "-w"] + arguments)
        return try ChildProcess(executable: executable, arguments: all, outputFile: directory.appendingPathComponent("pg_ctl.log"))
    }

    /// A command as the server's user.
    private func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        guard let runAs else { return (executable, arguments) }
        let runuser = FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") ? "/usr/sbin/runuser" : "/sbin/runuser"
        return (runuser, ["-u", runAs, "--", executable] + arguments)
    }

    private func start() async throws {
        let bin = Self.binDirectory!
        let data = directory.appendingPathComponent("data").path
        let (initExecutable, initArguments) = command(
            "\(bin)/initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"])
        let initdb = try ChildProcess(
            executable: initExecutable, arguments: initArguments, outputFile: directory.appendingPathComponent("initdb.log"))
        guard await initdb.waitForExit(timeout: .seconds(120)) == 0 else {
            throw StartError(description: "initdb failed: \(initdb.output)")
        }
        let (executable, arguments) = command(
            "\(bin)/postgres",
            ["-D", data, "-p", "\(port)", "-k", directory.path, "-h", "127.0.0.1", "-c", "fsync=off", "-c", "max_connections=50"])
        let process = try ChildProcess(executable: executable, arguments: arguments, outputFile: directory.appendingPathComponent("postgres.log"))
        self.process = process
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while ContinuousClock.now < deadline {
            if !process.isRunning { throw StartError(description: "postgres exited: \(process.output)") }
            if process.output.contains("ready to accept connections"), MosquittoBrokerProcess.canConnect(port: port) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw StartError(description: "postgres did not come up within 60 s: \(process.output)")
    }

    /// The server's log so far.
    var log: String { process?.output ?? "" }

    /// Stops the server (a fast shutdown) and waits for it.
    func stop() async {
        guard let process else { return }
        if let control = try? pgControl(["stop", "-m", "fast"]) { _ = await control.waitForExit(timeout: .seconds(30)) }
        _ = await process.waitForExit(timeout: .seconds(30))
        self.process = nil
    }
}
