import ServiceRuntime
import Testing

@Suite("Topics and device ids")
struct TopicsAndDeviceTests {
    @Test(arguments: ["phone-1", "A_b-9", String(repeating: "x", count: 64)])
    func validDevices(_ id: String) {
        #expect(DeviceID.isValid(id))
    }

    @Test(arguments: ["", "a.b", "a b", String(repeating: "x", count: 65), "markers", "services", "errors", "simulation", "é"])
    func invalidDevices(_ id: String) {
        #expect(throws: InputError.self) { try DeviceID.validate(id) }
    }

    @Test("topic names follow the contract and honour the prefix")
    func names() {
        let topics = Topics()
        #expect(topics.device("d1", .steps) == "stepcompass/d1/steps")
        #expect(topics.device("d1", .simulationTruth) == "stepcompass/d1/simulation/truth")
        #expect(topics.device("d1", .commandResetPosition) == "stepcompass/d1/cmd/reset-position")
        #expect(topics.allDevices(.heading) == "stepcompass/+/heading")
        #expect(topics.serviceStatus("compass") == "stepcompass/services/compass/status")
        #expect(topics.errors("markers") == "stepcompass/errors/markers")
        #expect(Topics(prefix: "lab").markersNearest == "lab/markers/nearest")
    }

    @Test("device topics parse back into device and suffix")
    func parse() {
        let topics = Topics()
        #expect(topics.parseDeviceTopic("stepcompass/d1/cmd/bearing-lock")?.topic == .commandBearingLock)
        #expect(topics.parseDeviceTopic("stepcompass/d1/cmd/bearing-lock")?.device == "d1")
        #expect(topics.parseDeviceTopic("stepcompass/d1/unknown") == nil)
        #expect(topics.parseDeviceTopic("other/d1/steps") == nil)
        #expect(topics.parseDeviceTopic("stepcompassX/d1/steps") == nil)
        #expect(topics.parseDeviceTopic("stepcompass/d1/steps/") == nil)
        #expect(topics.parseDeviceTopic("stepcompass/d1") == nil)
        #expect(topics.parseDeviceTopic("stepcompass/") == nil)
        #expect(topics.parseDeviceTopic("stepcompass//imu")?.device == "")
        #expect(topics.parseDeviceTopic("stepcompass/å-1/imu")?.device == "å-1")
        #expect(Topics(prefix: "a/b").parseDeviceTopic("a/b/d2/journal/photo")?.topic == .journalPhoto)
    }

    @Test("parsing a topic's bytes gives what splitting the string gives, for every ASCII topic tried")
    func parseAgreesWithStrings() {
        // The string-level split parseDeviceTopic did before it compared bytes.
        func split(_ topics: Topics, _ topic: String) -> (device: String, topic: Topics.DeviceTopic)? {
            guard topic.hasPrefix(topics.prefix + "/") else { return nil }
            let rest = topic.dropFirst(topics.prefix.count + 1)
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            guard let suffix = Topics.DeviceTopic(rawValue: String(rest[rest.index(after: slash)...])) else { return nil }
            return (String(rest[..<slash]), suffix)
        }
        let roots = ["stepcompass", "lab", "a/b", "a", "stepcompassX", "", "b"]
        let devices = ["d1", "walk-7", "", "x/y", "steps"]
        let suffixes = Topics.DeviceTopic.allCases.map(\.rawValue) + ["", "imux", "cmd", "steps/", "/imu"]
        var generator = SystemRandomNumberGenerator()
        var deviceTopics = 0
        for topics in [Topics(), Topics(prefix: "lab"), Topics(prefix: "a/b")] {
            for _ in 0..<5_000 {
                let topic = [roots, devices, suffixes].map { $0.randomElement(using: &generator)! }.joined(separator: "/")
                let expected = split(topics, topic)
                let parsed = topics.parseDeviceTopic(topic)
                if expected != nil { deviceTopics += 1 }
                #expect(parsed?.device == expected?.device && parsed?.topic == expected?.topic, "\(topic)")
            }
        }
        // Device topics among them, not only topics both reject.
        #expect(deviceTopics > 200, "\(deviceTopics) device topics of 15,000")
    }

    @Test("timestamps are ISO 8601 UTC with milliseconds and parse back")
    func timestamps() throws {
        let date = try #require(Timestamp.parse("2026-11-22T10:15:30.250Z"))
        #expect(Timestamp.format(date) == "2026-11-22T10:15:30.250Z")
        #expect(Timestamp.parse("2026-11-22T10:15:30Z") != nil)
        #expect(Timestamp.parse("yesterday") == nil)
    }
}
