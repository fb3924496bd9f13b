import ServiceRuntime
import Testing

@Suite("DeviceTable: per-device state with a cap, the idle evicted first")
struct DeviceTableTests {
    private func at(_ seconds: Int) -> ServiceClock.Instant { ServiceClock.Instant(offset: .seconds(seconds)) }

    private func evicted(_ insertion: DeviceTable<Int>.Insertion) -> String? {
        if case .evicted(let device, _) = insertion { return device }
        return nil
    }

    private func refused(_ insertion: DeviceTable<Int>.Insertion) -> Bool {
        if case .refused = insertion { return true }
        return false
    }

    @Test("below the capacity every device is tracked")
    func belowCapacity() {
        var table = DeviceTable<Int>(capacity: 3, minimumIdle: .seconds(60))
        #expect(table.isEmpty)
        for (index, device) in ["a", "b", "c"].enumerated() {
            guard case .inserted = table.insert(index, for: device, at: at(index)) else {
                Issue.record("\(device) was not inserted")
                return
            }
        }
        #expect(table.count == 3)
        #expect(table["b"] == 1)
        #expect(table.value(for: "c", at: at(5)) == 2)
        #expect(table.value(for: "d", at: at(5)) == nil)
        #expect(table.devices == ["a", "b", "c"])
    }

    @Test("a new device when full evicts the least recently used, once it has been idle the minimum")
    func evictsIdlest() {
        var table = DeviceTable<Int>(capacity: 3, minimumIdle: .seconds(60))
        table.insert(0, for: "a", at: at(0))
        table.insert(1, for: "b", at: at(10))
        table.insert(2, for: "c", at: at(20))
        // A use moves "a" to the back: "b" is the idlest now.
        #expect(table.value(for: "a", at: at(30)) == 0)
        #expect(table.devices == ["b", "c", "a"])
        // 59 s after its last use "b" is not idle enough, and nobody else is idler: refused, table unchanged.
        #expect(refused(table.insert(3, for: "d", at: at(69))))
        #expect(table.devices == ["b", "c", "a"])
        #expect(table.refusal(of: "d") == "tracking 3 devices, the most --max-devices allows; device 'd' is not tracked until one goes idle")
        // 60 s after: "b" goes, "d" takes its place.
        #expect(evicted(table.insert(3, for: "d", at: at(70))) == "b")
        #expect(table.count == 3)
        #expect(!table.contains("b"))
        #expect(table.devices == ["c", "a", "d"])
        // Then "c" (last used at 20).
        #expect(evicted(table.insert(4, for: "e", at: at(80))) == "c")
        #expect(table.devices == ["a", "d", "e"])
        // "a" was used at 30: idle 50 s at 80, refused.
        #expect(refused(table.insert(5, for: "f", at: at(80))))
    }

    @Test("inserting a tracked device replaces its value and counts as a use; the subscript does not")
    func replaceAndPeek() {
        var table = DeviceTable<Int>(capacity: 2, minimumIdle: .seconds(1))
        table.insert(0, for: "a", at: at(0))
        table.insert(1, for: "b", at: at(1))
        table["a"] = 10  // not a use: "a" stays the idlest
        #expect(table["a"] == 10)
        #expect(table.devices == ["a", "b"])
        table["z"] = 5  // not tracked: not added
        #expect(!table.contains("z"))
        guard case .inserted = table.insert(11, for: "a", at: at(2)) else {
            Issue.record("a tracked device is replaced")
            return
        }
        #expect(table["a"] == 11)
        #expect(table.devices == ["b", "a"])
    }

    @Test("removing a device frees its place for any new one")
    func remove() {
        var table = DeviceTable<Int>(capacity: 2, minimumIdle: .seconds(60))
        table.insert(0, for: "a", at: at(0))
        table.insert(1, for: "b", at: at(0))
        table["a"] = nil
        #expect(table.count == 1)
        #expect(table.devices == ["b"])
        guard case .inserted = table.insert(2, for: "c", at: at(1)) else {
            Issue.record("a freed place is taken without eviction")
            return
        }
        #expect(table.devices == ["b", "c"])
        #expect(table.map(\.value) == [1, 2])
        #expect(Set(table.values) == [1, 2])
    }

    @Test("a clock read earlier than a device's last use never makes it look idler")
    func clockOrder() {
        var table = DeviceTable<Int>(capacity: 1, minimumIdle: .seconds(60))
        table.insert(0, for: "a", at: at(100))
        _ = table.value(for: "a", at: at(50))
        #expect(refused(table.insert(1, for: "b", at: at(159))))
        #expect(evicted(table.insert(1, for: "b", at: at(160))) == "a")
    }

    @Test("100,000 devices and a million more: constant time per operation, never above the capacity")
    func flood() {
        var table = DeviceTable<Int>(capacity: 100_000, minimumIdle: .seconds(60))
        var refusals = 0
        var evictions = 0
        for index in 0..<1_100_000 {
            // 10,000 new devices a second: from the 100,000th on the table is full, and devices idle a minute go.
            let now = ServiceClock.Instant(offset: .milliseconds(index / 10))
            switch table.insert(index, for: "device-\(index)", at: now) {
            case .inserted: break
            case .evicted: evictions += 1
            case .refused: refusals += 1
            }
        }
        #expect(table.count == 100_000)
        // At 10,000 a second a minute is 600,000 devices: the first 100,000 are idle a minute from the 600,000th on,
        // and each makes room for one; the devices that took their places are idle a minute only at the 1,200,000th.
        #expect(evictions == 100_000)
        #expect(refusals == 900_000)
    }
}
