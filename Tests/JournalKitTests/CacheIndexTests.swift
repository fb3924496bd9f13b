import JournalKit
import Testing

@Suite("CacheIndex: least-recently-used eviction for the photo cache")
struct CacheIndexTests {
    @Test("inserting over the limit evicts the least recently used, a touch counts as a use")
    func evictsLeastRecentlyUsed() {
        var index = CacheIndex(limit: 100)
        #expect(index.insert("a", size: 40, at: 1).isEmpty)
        #expect(index.insert("b", size: 40, at: 2).isEmpty)
        index.touch("a", at: 3)
        // 40 + 40 + 40 = 120 > 100: b (used at 2) goes, a (used at 3) stays.
        #expect(index.insert("c", size: 40, at: 4) == ["b"])
        #expect(index.totalBytes == 80)
        #expect(index.count == 2)
        #expect(index.contains("a") && index.contains("c") && !index.contains("b"))
        #expect(index.keysByLastUse == ["a", "c"])
    }

    @Test("several keys can go at once, least recently used first")
    func severalAtOnce() {
        var index = CacheIndex(limit: 100)
        _ = index.insert("a", size: 30, at: 3)
        _ = index.insert("b", size: 30, at: 1)
        _ = index.insert("c", size: 30, at: 2)
        // 90 + 70 = 160: b (1) and c (2) make 100, a (3) stays.
        #expect(index.insert("d", size: 70, at: 4) == ["b", "c"])
        #expect(index.totalBytes == 100)
    }

    @Test("ties in time go by insertion order")
    func ties() {
        var index = CacheIndex(limit: 100)
        _ = index.insert("x", size: 40, at: 0)
        _ = index.insert("y", size: 40, at: 0)
        #expect(index.insert("z", size: 40, at: 0) == ["x"])
        // A touch at the same time makes y the newest of time 0.
        index.touch("y", at: 0)
        #expect(index.insert("w", size: 40, at: 0) == ["z"])
    }

    @Test("the key just inserted is never evicted, even when it is older than the rest")
    func neverTheNewKey() {
        var index = CacheIndex(limit: 100)
        _ = index.insert("new", size: 60, at: 10)
        #expect(index.insert("old", size: 60, at: 5) == ["new"])
        #expect(index.contains("old"))
        #expect(index.totalBytes == 60)
    }

    @Test("a key larger than the limit alone is returned and not kept; nothing else is evicted")
    func tooLarge() {
        var index = CacheIndex(limit: 100)
        _ = index.insert("a", size: 50, at: 1)
        #expect(index.insert("huge", size: 101, at: 2) == ["huge"])
        #expect(!index.contains("huge"))
        #expect(index.contains("a"))
        #expect(index.totalBytes == 50)
        // Exactly the limit fits, and pushes out the rest.
        #expect(index.insert("full", size: 100, at: 3) == ["a"])
        #expect(index.totalBytes == 100)
    }

    @Test("inserting a key again replaces its size and use")
    func reinsert() {
        var index = CacheIndex(limit: 100)
        _ = index.insert("a", size: 10, at: 1)
        _ = index.insert("b", size: 10, at: 2)
        #expect(index.insert("a", size: 50, at: 3).isEmpty)
        #expect(index.totalBytes == 60)
        #expect(index.count == 2)
        #expect(index.size(of: "a") == 50)
        // a is now newer than b.
        #expect(index.insert("c", size: 45, at: 4) == ["b"])
    }

    @Test("remove forgets a key and its bytes; unknown keys are ignored")
    func remove() {
        var index = CacheIndex(limit: 100)
        _ = index.insert("a", size: 30, at: 1)
        index.remove("a")
        index.remove("nothing")
        index.touch("nothing", at: 5)
        #expect(index.count == 0)
        #expect(index.totalBytes == 0)
        #expect(!index.contains("a"))
        #expect(index.insert("b", size: 100, at: 2).isEmpty)
    }

    @Test("a touch with an earlier time does not make a key older")
    func earlierTouch() {
        var index = CacheIndex(limit: 100)
        _ = index.insert("a", size: 40, at: 10)
        _ = index.insert("b", size: 40, at: 5)
        index.touch("a", at: 1)
        // a's last use is still 10 (and latest of all by order); b at 5 goes first.
        #expect(index.insert("c", size: 40, at: 11) == ["b"])
    }

    /// A straightforward model: a list, scanned for the oldest use each time.
    struct Model {
        let limit: Int
        var entries: [(key: String, size: Int, time: Double, order: Int)] = []
        var order = 0

        mutating func next() -> Int {
            order += 1
            return order
        }

        mutating func touch(_ key: String, at time: Double) {
            guard let i = entries.firstIndex(where: { $0.key == key }) else { return }
            entries[i].time = max(entries[i].time, time)
            entries[i].order = next()
        }

        mutating func insert(_ key: String, size: Int, at time: Double) -> [String] {
            entries.removeAll { $0.key == key }
            if size > limit { return [key] }
            entries.append((key, size, time, next()))
            var evicted: [String] = []
            while entries.reduce(0, { $0 + $1.size }) > limit {
                let candidates = entries.filter { $0.key != key }
                let oldest = candidates.min { ($0.time, $0.order) < ($1.time, $1.order) }!
                evicted.append(oldest.key)
                entries.removeAll { $0.key == oldest.key }
            }
            return evicted
        }

        mutating func remove(_ key: String) {
            entries.removeAll { $0.key == key }
        }
    }

    @Test("thousands of random operations agree with a simple model")
    func againstModel() {
        var index = CacheIndex(limit: 10_000)
        var model = Model(limit: 10_000)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var clock = 0.0
        for _ in 0..<20_000 {
            let key = "k\(random(200))"
            // Mostly forward, sometimes the same time, sometimes a little back.
            clock += Double(random(4)) - 0.5
            switch random(10) {
            case 0..<5:
                let size = random(10) == 0 ? random(12_000) : random(800)
                #expect(index.insert(key, size: size, at: clock) == model.insert(key, size: size, at: clock))
            case 5..<9:
                index.touch(key, at: clock)
                model.touch(key, at: clock)
            default:
                index.remove(key)
                model.remove(key)
            }
            #expect(index.count == model.entries.count)
            #expect(index.totalBytes == model.entries.reduce(0) { $0 + $1.size })
            #expect(index.totalBytes <= 10_000)
        }
    }
}
