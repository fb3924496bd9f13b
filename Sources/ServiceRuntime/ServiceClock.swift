public import Foundation

/// The clock a service reads its time from: any `Clock<Duration>`, erased, with the wall-clock date the service
/// stamps its messages with counted from the same clock.
///
/// Services get it from their ``BusServiceContext``: the executables use a `ContinuousClock`, tests a manual clock
/// they advance by hand, so windows, stale detection, timestamps and timers run on the test's time, not the
/// machine's. ``date`` is the system's date for a `ContinuousClock`; for another clock it is the epoch given when it
/// was wrapped plus the time the clock has moved since, so a test with a manual clock and a fixed epoch sees exact
/// timestamps.
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
    /// The wall-clock date of an offset: `Date()` for a `ContinuousClock` (so a wall-clock step after start, an NTP
    /// correction, is followed as before), the epoch plus the offset for any other clock (a test's exact dates).
    private let wallDate: @Sendable (Duration) -> Date
    public let minimumResolution: Duration

    /// Wraps `clock`; its present instant becomes offset zero. A `ServiceClock` is taken as it is (its own epoch
    /// kept).
    /// - Parameters:
    ///   - clock: The clock to read and sleep on.
    ///   - epoch: The wall-clock date of offset zero for a clock other than `ContinuousClock` (default: now); a
    ///     `ContinuousClock`'s dates are the system's, `Date()`.
    public init<C: Clock>(_ clock: C, epoch: Date = Date()) where C.Duration == Duration {
        if let erased = clock as? ServiceClock {
            self = erased
            return
        }
        let origin = clock.now
        self.elapsed = { origin.duration(to: clock.now) }
        self.sleeper = { offset, tolerance in try await clock.sleep(until: origin.advanced(by: offset), tolerance: tolerance) }
        if clock is ContinuousClock {
            self.wallDate = { _ in Date() }
        } else {
            self.wallDate = { offset in epoch.addingTimeInterval(offset.inSeconds) }
        }
        self.minimumResolution = clock.minimumResolution
    }

    /// A `ContinuousClock` from now: what the executables use.
    public static var continuous: ServiceClock { ServiceClock(ContinuousClock()) }

    public var now: Instant { Instant(offset: elapsed()) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleeper(deadline.offset, tolerance)
    }

    /// The wall-clock date now (see ``date(at:)``).
    public var date: Date { date(at: now) }

    /// The wall-clock date of `instant`, read from the same clock reading: `Date()` for a `ContinuousClock`, else
    /// the epoch plus the instant's offset.
    public func date(at instant: Instant) -> Date {
        wallDate(instant.offset)
    }
}
