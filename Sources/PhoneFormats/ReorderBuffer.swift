/// A bounded per-device buffer that puts samples from out-of-order batches back in time order.
///
/// A sample is released once it is at least ``delay`` seconds (of sample time) older than the newest
/// sample seen, or, oldest first, when more than ``capacity`` samples are held. A sample older than
/// the last one released can no longer be placed in order: it is dropped and counted in
/// ``droppedLateCount``. Samples with equal times keep their arrival order.
public struct ReorderBuffer: Sendable {
    /// How far behind the newest sample time a sample must be to be released, seconds.
    public let delay: Double
    /// The most samples held; beyond it the oldest are released early.
    public let capacity: Int
    /// Samples dropped because they were older than what had already been released.
    public private(set) var droppedLateCount = 0
    /// The time of the last released sample.
    public private(set) var releasedThrough: Double?
    /// The newest sample time seen.
    public private(set) var newestTime: Double?

    private var held: [(sample: PhoneSample, order: UInt64)] = []
    private var nextOrder: UInt64 = 0

    /// Creates a buffer releasing samples `delay` seconds behind the newest and holding at most
    /// `capacity` samples.
    public init(delay: Double = 1.0, capacity: Int = 20_000) {
        self.delay = max(0, delay)
        self.capacity = max(1, capacity)
    }

    /// How many samples are held.
    public var count: Int { held.count }

    /// Adds a batch (in any order) and returns the samples now released, in time order.
    public mutating func insert(_ samples: [PhoneSample]) -> [PhoneSample] {
        var added = false
        for sample in samples {
            guard sample.time.isFinite else {
                droppedLateCount += 1
                continue
            }
            if let releasedThrough, sample.time < releasedThrough {
                droppedLateCount += 1
                continue
            }
            held.append((sample, nextOrder))
            nextOrder &+= 1
            newestTime = max(newestTime ?? sample.time, sample.time)
            added = true
        }
        guard added else { return [] }
        held.sort { $0.sample.time != $1.sample.time ? $0.sample.time < $1.sample.time : $0.order < $1.order }
        var releasable = 0
        if let newestTime {
            let threshold = newestTime - delay
            while releasable < held.count, held[releasable].sample.time <= threshold { releasable += 1 }
        }
        releasable = max(releasable, held.count - capacity)
        return release(releasable)
    }

    /// Releases everything held, in time order (e.g. at the end of a recording or after a silence).
    public mutating func flush() -> [PhoneSample] {
        release(held.count)
    }

    private mutating func release(_ count: Int) -> [PhoneSample] {
        guard count > 0 else { return [] }
        let released = held.prefix(count).map(\.sample)
        held.removeFirst(count)
        releasedThrough = released.last?.time
        return released
    }
}
