import Foundation

/// A value guarded by a pthread mutex.
///
/// The bus uses this rather than the standard library's `Synchronization.Mutex`: on Linux that mutex
/// is built directly on futexes, which ThreadSanitizer does not see, so every access under it is reported
/// as a race and a real one would be lost in the noise. A pthread mutex (through `NSLock`) is intercepted
/// by ThreadSanitizer, so `swift test --sanitize=thread` checks the bus for real. Never held across an
/// `await`.
package final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
