public import Foundation

/// The clock a service reads its time from: any `Clock<Duration>`, erased, with the wall-clock date the service
/// stamps its messages with counted from the same clock.
///
/// Services get it from their ``BusServiceContext``: the executables use a `ContinuousClock`, tests a manual clock
/// they advance by hand, so windows, stale detection, timestamps and timers run on the test's time, not the
/// machine's. ``date`` is the wall-clock date when the clock was wrapped plus the time the clock has moved since,
/// so a test with a manual clock and a fixed `epoch` sees exact timestamps.
public struct ServiceClock: Clock, Sendable {
    /// A point on the erased clock: the time since the clock was wrapped.
    public struct Instant: InstantProtocol, Sendable {
        /// The time since the clock was wrapped.
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration, Duration?) async throws -> Void
    private let epoch: Date
    public let minimumResolution: Duration

    /// Wraps `clock`; its present instant becomes offset zero, and the wall-clock date `epoch`. A `ServiceClock` is
    /// taken as it is (its own epoch kept).
    /// - Parameters:
    ///   - clock: The clock to read and sleep on.
    ///   - epoch: The wall-clock date of offset zero (default: now).
    public init<C: Clock>(_ clock: C, epoch: Date = Date()) where C.Duration == Duration {
        if let erased = clock as? ServiceClock {
            self = erased
            return
        }
        let origin = clock.now
        self.elapsed = { origin.duration(to: clock.now) }
        self.sleeper = { offset, tolerance in try await clock.sleep(until: origin.advanced(by: offset), tolerance: tolerance) }
        self.epoch = epoch
        self.minimumResolution = clock.minimumResolution
    }

    /// A `ContinuousClock` from now: what the executables use.
    public static var continuous: ServiceClock { ServiceClock(ContinuousClock()) }

    public var now: Instant { Instant(offset: elapsed()) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleeper(deadline.offset, tolerance)
    }

    /// The wall-clock date now: the epoch plus the time the clock has moved since it was wrapped.
    public var date: Date {
        epoch.addingTimeInterval(elapsed().inSeconds)
    }
}
