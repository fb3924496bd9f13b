/// Least-recently-used bookkeeping for a disk cache of bounded size: which keys to delete so that the cached
/// bytes fit a limit. The caller does the file I/O.
///
/// Every operation is O(log n) amortised: entries live in a dictionary and a binary min-heap ordered by last use
/// (ties broken by the order of insertion or use), whose stale entries are skipped and compacted away.
public struct CacheIndex: Sendable {
    private struct Entry: Sendable {
        var size: Int
        var time: Double
        var sequence: UInt64
    }

    private struct HeapItem: Sendable {
        var time: Double
        var sequence: UInt64
        var key: String

        func precedes(_ other: HeapItem) -> Bool {
            (time, sequence) < (other.time, other.sequence)
        }
    }

    /// The most bytes the cache may hold.
    public let limit: Int
    /// The bytes of every key kept.
    public private(set) var totalBytes: Int = 0
    /// The number of keys kept.
    public var count: Int { entries.count }

    private var entries: [String: Entry] = [:]
    private var heap: [HeapItem] = []
    private var nextSequence: UInt64 = 0

    /// An empty index that keeps at most `limit` bytes (a negative limit counts as 0).
    public init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Whether `key` is kept.
    public func contains(_ key: String) -> Bool {
        entries[key] != nil
    }

    /// The size in bytes recorded for `key`, nil when it is not kept.
    public func size(of key: String) -> Int? {
        entries[key]?.size
    }

    /// Records a use of `key` at `time` (seconds, any clock), making it the most recently used of its time;
    /// an earlier `time` than the last recorded use does not make it older. Unknown keys are ignored.
    public mutating func touch(_ key: String, at time: Double) {
        guard var entry = entries[key] else { return }
        entry.time = max(entry.time, time)
        entry.sequence = takeSequence()
        entries[key] = entry
        push(HeapItem(time: entry.time, sequence: entry.sequence, key: key))
    }

    /// Records `key` of `size` bytes (negative counts as 0) used at `time`, replacing any earlier record of it, and
    /// returns the keys to delete, least recently used first, so that the total fits ``limit``.
    ///
    /// The key just inserted is never among them, unless it alone is larger than the limit: then only it is
    /// returned, it is not kept, and nothing else is evicted.
    public mutating func insert(_ key: String, size: Int, at time: Double) -> [String] {
        let size = max(0, size)
        remove(key)
        guard size <= limit else { return [key] }
        let entry = Entry(size: size, time: time, sequence: takeSequence())
        entries[key] = entry
        totalBytes += size
        push(HeapItem(time: time, sequence: entry.sequence, key: key))

        var evicted: [String] = []
        var setAside: [HeapItem] = []
        while totalBytes > limit, let item = popCurrent() {
            if item.key == key {
                setAside.append(item)
                continue
            }
            evicted.append(item.key)
            totalBytes -= entries.removeValue(forKey: item.key)?.size ?? 0
        }
        for item in setAside { push(item) }
        compactIfNeeded()
        return evicted
    }

    /// Forgets `key` (the caller deleted its file); unknown keys are ignored.
    public mutating func remove(_ key: String) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        totalBytes -= entry.size
        compactIfNeeded()
    }

    /// The keys kept, least recently used first.
    public var keysByLastUse: [String] {
        entries.sorted { ($0.value.time, $0.value.sequence) < ($1.value.time, $1.value.sequence) }.map(\.key)
    }

    private mutating func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }

    /// Pops heap items until one matches its entry's current use; nil when the heap is empty.
    private mutating func popCurrent() -> HeapItem? {
        while let item = pop() {
            if let entry = entries[item.key], entry.sequence == item.sequence { return item }
        }
        return nil
    }

    /// Rebuilds the heap from the entries when stale items outnumber live ones.
    private mutating func compactIfNeeded() {
        guard heap.count > 2 * entries.count + 32 else { return }
        heap = entries.map { HeapItem(time: $0.value.time, sequence: $0.value.sequence, key: $0.key) }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    private mutating func push(_ item: HeapItem) {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
        compactIfNeeded()
    }

    private mutating func pop() -> HeapItem? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let item = heap.removeLast()
        siftDown(0)
        return item
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
