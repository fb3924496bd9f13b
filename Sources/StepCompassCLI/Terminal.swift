import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writing to the terminal: unbuffered, so lines appear at once even through a pipe.
enum Terminal {
    /// Whether standard output is a terminal (then `watch` redraws a screen).
    static var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Writes text to standard output as is.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes a line to standard output.
    static func print(_ line: String) {
        write(line + "\n")
    }

    /// Writes a report: its JSON as it is with `--json`, else its lines for people.
    static func print(json: Bool, _ data: () -> Data, lines: () -> [String]) {
        if json {
            print(String(decoding: data(), as: UTF8.self))
        } else {
            for line in lines() { print(line) }
        }
    }

    /// Writes `error: message` to standard error.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    }

    /// Runs `operation` until it ends or SIGINT/SIGTERM arrives, which cancels it (so Ctrl-C lets it
    /// clean up: restore the cursor, disconnect).
    static func runUntilInterrupted(_ operation: @escaping @Sendable () async throws -> Void) async throws {
        let task = Task { try await operation() }
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            sources.append(source)
        }
        defer {
            for source in sources { source.cancel() }
        }
        try await task.value
    }
}
