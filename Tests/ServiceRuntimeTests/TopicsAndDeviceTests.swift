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
    }

    @Test("timestamps are ISO 8601 UTC with milliseconds and parse back")
    func timestamps() throws {
        let date = try #require(Timestamp.parse("2026-11-22T10:15:30.250Z"))
        #expect(Timestamp.format(date) == "2026-11-22T10:15:30.250Z")
        #expect(Timestamp.parse("2026-11-22T10:15:30Z") != nil)
        #expect(Timestamp.parse("yesterday") == nil)
    }
}
