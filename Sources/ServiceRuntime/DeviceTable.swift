/// A service's per-device state, at most ``capacity`` devices, ordered by last use.
///
/// A flood of distinct device ids (a misbehaving client, a fuzzer, an attack) must not grow a service's memory
/// without bound. The table keeps its devices in a doubly linked list in arrays, least recently used first; every
/// operation is O(1) (amortised, for the dictionary), whatever the number of devices.
///
/// **The eviction rule.** Inserting a device when the table is full evicts the least recently used device if it has
/// been idle for at least ``minimumIdle`` (default 60 s: twelve times the compass's stale time, the activity
/// service's cadence window: a device that quiet has been marked stale and walks at a cadence of 0). If even the
/// least recently used device was used more recently than that, none can be evicted, and the table refuses the new
/// device: the caller reports its message as rejected (``refusal(of:)``). The devices already tracked are never
/// pushed out by new ones while they are in use.
///
/// Time is the caller's: pass the service's clock (`context.clock.now`), never the wall clock, so tests can advance
/// a manual clock. Looking a device up with ``value(for:at:)`` or inserting it counts as a use; the subscript does not.
///
/// Its operations are `@inlinable`: a service calls them for every message, and unspecialised across the module
/// boundary each one looked up generic metadata and copied its values through witnesses (a tenth of the compass's
/// CPU under load, `perf`).
public struct DeviceTable<Value> {
    /// What ``insert(_:for:at:)`` did.
    public enum Insertion {
        /// The device is tracked now (or its value was replaced); nothing was evicted.
        case inserted
        /// The device is tracked now, in place of `device`, which had been idle the longest; its value is `value`.
        case evicted(device: String, value: Value)
        /// The table is full and every device was used within ``DeviceTable/minimumIdle``: the device is not tracked.
        case refused
    }

    /// The default of `--max-devices` (`max.devices`, `MAX_DEVICES`) for the services that track devices.
    public static var defaultCapacity: Int { 100_000 }
    /// The default of ``minimumIdle``.
    public static var defaultMinimumIdle: Duration { .seconds(60) }

    /// The most devices tracked.
    public let capacity: Int
    /// How long a device must have been idle before a new device may take its place.
    public let minimumIdle: Duration

    @usableFromInline
    struct Entry {
        @usableFromInline var device: String
        @usableFromInline var value: Value
        @usableFromInline var lastUsed: ServiceClock.Instant
        @usableFromInline var older: Int
        @usableFromInline var newer: Int

        @inlinable
        init(device: String, value: Value, lastUsed: ServiceClock.Instant, older: Int, newer: Int) {
            self.device = device
            self.value = value
            self.lastUsed = lastUsed
            self.older = older
            self.newer = newer
        }
    }

    /// The slot of each device in `entries`.
    @usableFromInline var slots: [String: Int] = [:]
    /// The devices, linked from the least (`oldest`) to the most recently used (`newest`); nil is a free slot.
    @usableFromInline var entries: [Entry?] = []
    @usableFromInline var free: [Int] = []
    @usableFromInline var oldest = -1
    @usableFromInline var newest = -1

    /// Creates an empty table.
    /// - Parameters:
    ///   - capacity: The most devices tracked (at least 1).
    ///   - minimumIdle: How long a device must have been idle to be evicted for a new one.
    public init(capacity: Int = Self.defaultCapacity, minimumIdle: Duration = Self.defaultMinimumIdle) {
        precondition(capacity >= 1, "a device table holds at least one device")
        self.capacity = capacity
        self.minimumIdle = minimumIdle
    }

    /// The number of devices tracked.
    @inlinable public var count: Int { slots.count }

    @inlinable public var isEmpty: Bool { slots.isEmpty }

    /// Whether `device` is tracked.
    @inlinable public func contains(_ device: String) -> Bool { slots[device] != nil }

    /// The value of a tracked device, without counting as a use. Setting a value replaces that of a tracked device
    /// (again not a use), setting nil stops tracking it; a device that is not tracked is not added (that is
    /// ``insert(_:for:at:)``, which keeps to the capacity).
    @inlinable
    public subscript(device: String) -> Value? {
        get { slots[device].flatMap { entries[$0]?.value } }
        set {
            guard let slot = slots[device] else { return }
            if let newValue {
                entries[slot]?.value = newValue
            } else {
                unlink(slot)
                slots[device] = nil
                entries[slot] = nil
                free.append(slot)
            }
        }
    }

    /// The value of `device` if it is tracked, which counts as a use at `now`.
    @inlinable
    public mutating func value(for device: String, at now: ServiceClock.Instant) -> Value? {
        guard let slot = slots[device] else { return nil }
        touch(slot, at: now)
        return entries[slot]?.value
    }

    /// Tracks `device` with `value`, used at `now`, evicting the device idle the longest when the table is full; a
    /// device already tracked has its value replaced.
    /// - Returns: What happened; on ``Insertion/refused`` the table is unchanged.
    @inlinable @discardableResult
    public mutating func insert(_ value: Value, for device: String, at now: ServiceClock.Instant) -> Insertion {
        if let slot = slots[device] {
            entries[slot]?.value = value
            touch(slot, at: now)
            return .inserted
        }
        if slots.count < capacity {
            let entry = Entry(device: device, value: value, lastUsed: now, older: -1, newer: -1)
            let slot: Int
            if let reused = free.popLast() {
                slot = reused
                entries[slot] = entry
            } else {
                slot = entries.count
                entries.append(entry)
            }
            slots[device] = slot
            link(slot)
            return .inserted
        }
        guard oldest >= 0, let idlest = entries[oldest], idlest.lastUsed.duration(to: now) >= minimumIdle else {
            return .refused
        }
        let slot = oldest
        unlink(slot)
        slots[idlest.device] = nil
        entries[slot] = Entry(device: device, value: value, lastUsed: now, older: -1, newer: -1)
        slots[device] = slot
        link(slot)
        return .evicted(device: idlest.device, value: idlest.value)
    }

    /// The reason to give when a message of `device` is rejected because the table refused it.
    public func refusal(of device: String) -> String {
        "tracking \(count) devices, the most --max-devices allows; device '\(device.prefix(80))' is not tracked until one goes idle"
    }

    /// The devices, the least recently used first.
    public var devices: [String] { map(\.device) }

    /// The values, in no particular order.
    public var values: some Sequence<Value> { entries.lazy.compactMap { $0?.value } }

    // MARK: The list

    @inlinable
    mutating func touch(_ slot: Int, at now: ServiceClock.Instant) {
        if let used = entries[slot]?.lastUsed, used < now { entries[slot]?.lastUsed = now }
        guard slot != newest else { return }
        unlink(slot)
        link(slot)
    }

    /// Appends `slot` as the most recently used.
    @inlinable
    mutating func link(_ slot: Int) {
        entries[slot]?.older = newest
        entries[slot]?.newer = -1
        if newest >= 0 { entries[newest]?.newer = slot } else { oldest = slot }
        newest = slot
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        guard let entry = entries[slot] else { return }
        if entry.older >= 0 { entries[entry.older]?.newer = entry.newer } else { oldest = entry.newer }
        if entry.newer >= 0 { entries[entry.newer]?.older = entry.older } else { newest = entry.older }
        entries[slot]?.older = -1
        entries[slot]?.newer = -1
    }
}

extension DeviceTable: Sequence {
    /// Walks the devices and their values, the least recently used first.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let entries: [Entry?]
        @usableFromInline var slot: Int

        @inlinable
        init(entries: [Entry?], slot: Int) {
            self.entries = entries
            self.slot = slot
        }

        @inlinable
        public mutating func next() -> (device: String, value: Value)? {
            guard slot >= 0, let entry = entries[slot] else { return nil }
            slot = entry.newer
            return (entry.device, entry.value)
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(entries: entries, slot: oldest) }

    public var underestimatedCount: Int { count }
}

extension DeviceTable: Sendable where Value: Sendable {}
extension DeviceTable.Entry: Sendable where Value: Sendable {}
extension DeviceTable.Insertion: Sendable where Value: Sendable {}
