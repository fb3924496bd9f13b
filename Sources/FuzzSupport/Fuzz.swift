public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the libFuzzer targets (`Sources/Fuzz*`, built only with `STEPCOMPASS_FUZZ=1`, see `scripts/fuzz.sh`) share:
/// the run of one input with its time limit, the property check whose failure libFuzzer records as a crash (with the
/// input that broke it), and the JSON round trip every `Codable` contract type must survive.
public enum Fuzz {
    /// The most CPU time one input may take, in milliseconds: `FUZZ_SLOW_MS`, 100 by default.
    ///
    /// libFuzzer's own limits count whole seconds of wall-clock time (`-timeout`, `-report_slow_units`), so a decoder
    /// that is merely slow on some input (quadratic, say) would pass; this one counts the thread's CPU time, so a busy
    /// machine does not make an input slow.
    public static let slowMilliseconds: Double = ProcessInfo.processInfo.environment["FUZZ_SLOW_MS"].flatMap(Double.init) ?? 100

    /// Runs one input (what `LLVMFuzzerTestOneInput` does): the bytes libFuzzer hands over, copied, go to `body`. An
    /// input that takes more than ``slowMilliseconds`` of CPU time is run once more (the first run of a code path may
    /// pay for loading data, such as ICU's calendars), and is a failure when it is slow again.
    public static func run(_ start: UnsafeRawPointer?, _ count: Int, _ body: ([UInt8]) -> Void) -> CInt {
        let bytes: [UInt8] = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
        let first = cpuMilliseconds { body(bytes) }
        guard first > slowMilliseconds else { return 0 }
        let again = cpuMilliseconds { body(bytes) }
        require(
            again <= slowMilliseconds,
            "slow input: \(Int(first)) ms, then \(Int(again)) ms of CPU time (the limit is \(Int(slowMilliseconds)) ms): \(show(bytes, limit: 200))")
        return 0
    }

    /// The CPU time the calling thread spends in `body`, in milliseconds.
    static func cpuMilliseconds(_ body: () -> Void) -> Double {
        func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) * 1_000 + Double(time.tv_nsec) / 1_000_000
        }
        let start = now()
        body()
        return now() - start
    }

    /// Stops the run when a property does not hold: the message goes to standard error and the process aborts, which
    /// libFuzzer reports as a crash and saves the input as `crash-…`.
    public static func require(
        _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
    ) {
        guard !condition() else { return }
        fail(message(), file: file, line: line)
    }

    /// Reports a broken property and aborts (see ``require(_:_:file:line:)``).
    public static func fail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        FileHandle.standardError.write(Data("\nFUZZ PROPERTY FAILED (\(file):\(line)): \(message)\n".utf8))
        abort()
    }

    /// The bytes as text for a failure message: at most `limit` bytes, invalid UTF-8 repaired.
    public static func show(_ bytes: some Collection<UInt8>, limit: Int = 400) -> String {
        let text = String(decoding: bytes.prefix(limit), as: UTF8.self)
        return bytes.count > limit ? text + "…(\(bytes.count) bytes)" : text
    }

    /// A value's JSON as the contract's writers make it deterministic: sorted keys, slashes unescaped; nil when the
    /// value cannot be written (a non-finite number).
    public static func json(_ value: some Encodable) -> Data? {
        try? encoder.encode(value)
    }

    /// One encoder for every input (a fuzzer runs on one thread; making one per call cost several per input).
    nonisolated(unsafe) private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// What every decoded contract value must survive: written as JSON and read back with the same decoder, it gives
    /// a value that is written as the same JSON (a fixed point: the decoder reads everything the encoder writes, and
    /// neither loses what the other keeps). Compared as JSON, so `5.0` read back as the integer `5` still agrees.
    /// - Parameters:
    ///   - value: A value the decoder read from the fuzz input.
    ///   - what: The type's name for the failure message.
    ///   - decode: The decoder under test.
    public static func requireRoundTrip<T: Encodable>(
        _ value: T, _ what: String, file: StaticString = #fileID, line: UInt = #line, decode: (Data) throws -> T
    ) {
        // Every number a decoder gives is finite (JSON has no NaN or infinity), so every decoded value can be written.
        guard let first = json(value) else { fail("\(what): the decoded value \(value) cannot be written as JSON", file: file, line: line) }
        let again: T
        do {
            again = try decode(first)
        } catch {
            fail("\(what): its own JSON \(show(first)) does not decode: \(error)", file: file, line: line)
        }
        guard let second = json(again) else { fail("\(what): \(again) cannot be written as JSON", file: file, line: line) }
        require(first == second, "\(what): \(show(first)) read back is written as \(show(second))", file: file, line: line)
    }

    /// Printable ASCII without quotes or backslashes: what the contract's hand-written writers (`IMUPayload.json`,
    /// `StepsMessage.json`, `LocationMessage.json`, `PermissionsMessage.json`) put between quotes as it is. Other
    /// text never reaches them (the bridge writes its own timestamps and values), so their round trips skip it.
    public static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}
