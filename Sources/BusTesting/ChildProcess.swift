import Bus
public import Foundation
import Subprocess
import SystemPackage

#if canImport(Glibc)
    public import Glibc
#endif

/// A child process for tests and the load tools (a broker, a service, a database server), run by swift-subprocess.
///
/// swift-subprocess starts it (`posix_spawn` with an empty signal mask and default dispositions, so that a child
/// started from a dispatch worker thread, which blocks signals, still takes SIGTERM; and no descriptor of ours
/// beyond its output, above all not the pipe `swift test` reads, which a child outliving a crashed test would hold
/// open), overlays the environment, and waits for its exit on its own monitor thread, never on the two threads of
/// Swift's cooperative pool of a 2-core machine.
///
/// This is the thin part swift-subprocess does not have. Its `run` is scoped: the process ends before `run`
/// returns, while a test keeps a broker or a service across restarts and kills it from anywhere (a `deinit`
/// included). So `run` goes on in a task of its own, which hands back the pid and keeps the exit status for
/// ``isRunning`` and ``waitForExit(timeout:)``; the standard output and error go to a file that tests read while the
/// process runs (``output``).
public final class ChildProcess: Sendable {
    /// Why a process could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The process id.
    public let pid: Glibc.pid_t
    /// The file receiving the child's standard output and error.
    public let outputFile: URL
    /// The exit code (128 + the signal number when a signal ended it), once `run` has seen the exit.
    private let exitCode: LockedValue<Int32?>

    /// Starts `executable` with `arguments`, the current environment overlaid with `environment`, its output
    /// appended to `outputFile` (a new temporary file by default).
    public init(executable: String, arguments: [String] = [], environment: [String: String] = [:], outputFile: URL? = nil) async throws {
        let output = outputFile ?? FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).log")
        self.outputFile = output
        let file = try FileDescriptor.open(
            FilePath(output.path), .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        defer { try? file.close() }
        var overlay: [Environment.Key: String?] = [:]
        for (key, value) in environment { overlay[Environment.Key(rawValue: key)!] = value }
        let exitCode = LockedValue<Int32?>(nil)
        self.exitCode = exitCode
        let (started, reportStart) = AsyncThrowingStream.makeStream(of: Glibc.pid_t.self)
        let configuration = Configuration(
            executable: .path(FilePath(executable)), arguments: Arguments(arguments), environment: .inherit.updating(overlay))
        Task.detached {
            do {
                let result = try await Subprocess.run(
                    configuration, input: .none, output: .fileDescriptor(file, closeAfterSpawningProcess: false),
                    error: .combinedWithOutput
                ) { execution in
                    reportStart.yield(execution.processIdentifier.value)
                    reportStart.finish()
                }
                switch result.terminationStatus {
                case .exited(let code): exitCode.withLock { $0 = code }
                case .signaled(let signal): exitCode.withLock { $0 = 128 + signal }
                }
            } catch {
                reportStart.finish(throwing: error)
            }
        }
        do {
            guard let pid = try await started.first(where: { _ in true }) else {
                throw SpawnError(description: "could not start \(executable)")
            }
            self.pid = pid
        } catch let error as SpawnError {
            throw error
        } catch {
            throw SpawnError(description: "could not start \(executable): \(error)")
        }
    }

    deinit {
        if isRunning { kill(pid, SIGKILL) }
    }

    /// The child's output so far.
    public var output: String {
        (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
    }

    /// Sends a signal, unless the child has exited.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Whether the child is still running. It looks at the process itself (`waitid` with `WNOWAIT`, which leaves
    /// the reaping to swift-subprocess), so it is right at once, even while the cooperative pool is too busy to let
    /// `run` record the exit, and may be polled from a blocking loop.
    public var isRunning: Bool {
        if exitCode.withLock({ $0 }) != nil { return false }
        var info = siginfo_t()
        let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        // -1 (ECHILD): already reaped; a nonzero pid in `info`: exited, not reaped yet.
        return result == 0 && info._sifields._sigchld.si_pid == 0
    }

    /// The exit code once the child has exited and `run` has recorded it, else nil. Never blocks.
    public var exitStatus: Int32? { exitCode.withLock { $0 } }

    /// Waits for the child to exit without blocking a thread; nil on timeout.
    /// - Returns: The exit code, or 128 + the signal number when a signal ended it.
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        // As many looks as the timeout has 10 ms steps, however late the cooperative pool runs this task.
        let minimumLooks = Int(timeout.components.seconds) * 100 + Int(timeout.components.attoseconds / 10_000_000_000_000_000)
        var looks = 0
        while ContinuousClock.now < deadline || looks < minimumLooks {
            if let code = exitStatus { return code }
            looks += 1
            try? await Task.sleep(for: .milliseconds(10))
        }
        return exitStatus
    }
}
