import Bus
import DashboardKit
import Foundation
import InMemoryBus
import ServiceRuntime
import Testing

@testable import StepCompassClient

@Suite("stepcompass watch: state, screen and lines")
struct WatchTests {
    private func message(_ topic: String, _ json: String, retain: Bool = false) -> BusMessage {
        BusMessage(topic: topic, text: json, qos: .atLeastOnce, retain: retain)
    }

    /// A short walk: what the services publish for one device.
    private var walk: [BusMessage] {
        [
            message(
                "stepcompass/services/compass/status",
                #"{"state":"online","service":"compass","version":"0.1.0","startedAt":"2026-11-22T10:00:00.000Z"}"#),
            message("stepcompass/walker-1/permissions", #"{"motion":"authorized","location":"denied"}"#),
            message(
                "stepcompass/walker-1/heading",
                #"{"status":"ok","heading":269.6,"north":"magnetic","cardinal":"W","accuracy":3.2,"calibration":"calibrated","interference":false,"pitch":1,"roll":-2}"#
            ),
            message("stepcompass/walker-1/steps", #"{"steps":1234}"#),
            message(
                "stepcompass/walker-1/position",
                #"{"x":12.34,"y":-4.46,"steps":1234,"sessionSteps":1234,"distance":925.5,"heading":270,"updates":123}"#),
            message(
                "stepcompass/walker-1/calibration",
                #"{"state":"needsCalibration","quality":0.2,"coverage":0.3,"message":"Move the phone in a figure-8."}"#),
            message("stepcompass/walker-1/bearing-lock", #"{"locked":true,"bearing":45,"deviation":-135.4,"threshold":10,"exceeded":true}"#),
            message("stepcompass/walker-1/location", #"{"latitude":48.137434,"longitude":11.575491,"altitude":519.2}"#),
            message("stepcompass/markers/status", #"{"state":"ready","count":44}"#),
        ]
    }

    @Test("the screen shows the dashboard's words for a device after a sequence of messages")
    func screen() {
        var state = WatchState(topics: Topics(), device: nil)
        for message in walk { _ = state.apply(message) }
        let lines = WatchScreen.lines(state, width: 45)
        #expect(lines[0] == "StepCompass — walker-1")
        #expect(lines[1].count == 45)
        #expect(Array(lines[1])[22] == "W")
        #expect(lines[3] == "Heading: 270° W · Accuracy: ±3° · Magnetic north")
        #expect(lines[4] == "Steps: 1,234 · Position: (12.3 m, –4.5 m) · Distance walked: 925.5 m")
        #expect(lines[5] == "Compass needs calibration · Pitch +1°, roll –2°")
        #expect(lines[6] == "  Move the phone in a figure-8.")
        #expect(lines[7] == "Bearing lock: Locked on 45° NE: –135° off (limit 10°) — OFF COURSE")
        #expect(lines[8] == "48.13743° N, 11.57549° E · Elevation: 519 m")
        #expect(lines[9] == "Motion: authorized · Location: denied")
        #expect(lines[10].hasPrefix("  Location access is off"))
        #expect(lines.contains("Markers: 44 markers ready"))
        #expect(lines.contains("Services: compass online"))
        #expect(lines.last == "Ctrl-C to quit")
    }

    @Test("with colour, an exceeded lock is a red band")
    func colour() {
        var state = WatchState(topics: Topics(), device: nil)
        for message in walk { _ = state.apply(message) }
        let lock = WatchScreen.lines(state, colour: true).first { $0.contains("Bearing lock") }
        #expect(lock == "\u{1B}[41;97mBearing lock: Locked on 45° NE: –135° off (limit 10°) — OFF COURSE\u{1B}[0m")
    }

    @Test("before any device: a waiting screen")
    func waiting() {
        #expect(WatchScreen.lines(WatchState(topics: Topics(), device: nil)).first == "StepCompass — waiting for a device to publish…")
        #expect(WatchScreen.lines(WatchState(topics: Topics(), device: "w")).first == "StepCompass — waiting for w to publish…")
    }

    @Test("the first device seen is shown; a later one changes nothing on screen but is listed")
    func firstDevice() {
        var state = WatchState(topics: Topics(), device: nil)
        #expect(state.apply(message("stepcompass/a/steps", #"{"steps":1}"#)) == .device("a"))
        #expect(state.apply(message("stepcompass/b/steps", #"{"steps":2}"#)) == nil)
        #expect(state.deviceID == "a")
        #expect(WatchScreen.lines(state)[0] == "StepCompass — a (devices: a, b)")
    }

    @Test("--device shows that device only")
    func chosenDevice() {
        var state = WatchState(topics: Topics(), device: "b")
        #expect(state.apply(message("stepcompass/a/steps", #"{"steps":1}"#)) == nil)
        #expect(state.apply(message("stepcompass/b/steps", #"{"steps":2}"#)) == .device("b"))
        #expect(state.deviceView?.stepsText == "Steps: 2")
        let filters = (try? WatchFilters(topics: Topics(), device: "b").requests.map(\.filter.rawValue)) ?? []
        #expect(filters.contains("stepcompass/b/heading"))
        #expect(!filters.contains { $0.contains("+/heading") })
    }

    @Test("error reports, forbidden ids and unknown topics are ignored; unreadable payloads are counted")
    func ignoredAndUnreadable() {
        var state = WatchState(topics: Topics(), device: nil)
        #expect(state.apply(message("stepcompass/errors/position", #"{"error":"x"}"#)) == nil)
        #expect(state.apply(message("stepcompass/bad.id/steps", #"{"steps":1}"#)) == nil)
        #expect(state.apply(message("stepcompass/w/imu", #"{}"#)) == nil)
        #expect(state.apply(message("elsewhere/w/steps", #"{"steps":1}"#)) == nil)
        #expect(state.apply(message("stepcompass/w/steps", #"{"steps":"many"}"#)) == .unreadable)
        #expect(state.unreadableCount == 1)
        #expect(state.model.deviceIDs.isEmpty)
        #expect(WatchScreen.lines(state).contains { $0.hasPrefix("1 unreadable message, the last: stepcompass/w/steps: unreadable steps message") })
    }

    @Test("one line per change, for piping")
    func lines() {
        var state = WatchState(topics: Topics(), device: nil)
        var out: [String] = []
        for message in walk {
            if let change = state.apply(message), let line = WatchScreen.line(for: change, in: state) { out.append(line) }
        }
        #expect(out.first == "Services: compass online")
        #expect(out.last == "Markers: 44 markers ready")
        #expect(
            out.contains(
                "walker-1 | Steps: 1,234 | Heading: 270° W | Position: (12.3 m, –4.5 m) | Compass needs calibration | Bearing lock: Locked on 45° NE: –135° off (limit 10°) — OFF COURSE"
            ))
    }

    @Test("a session on the bus writes a line per visible change and drops repeats")
    func sessionLines() async throws {
        let pair = InMemoryPair()
        try await pair.publish("stepcompass/markers/status", #"{"state":"loading"}"#, retain: true)
        let transcript = Transcript()
        let session = WatchSession(bus: pair.client, topics: pair.topics, device: nil)
        let task = Task { try await session.run(output: .lines, write: { transcript.append($0) }) }
        #expect(await transcript.wait { $0.contains("Markers: loading…\n") })
        try await pair.publish("stepcompass/walker-1/heading", #"{"status":"ok","heading":359.6,"north":"true","cardinal":"N"}"#)
        try await pair.publish("stepcompass/walker-1/heading", #"{"status":"ok","heading":359.7,"north":"true","cardinal":"N"}"#)
        try await pair.publish("stepcompass/walker-1/steps", #"{"steps":10}"#)
        #expect(await transcript.wait { $0.count >= 3 })
        task.cancel()
        try await task.value
        #expect(
            transcript.all == [
                "Markers: loading…\n",
                "walker-1 | Steps: — | Heading: 0° N | Position: — | Compass not calibrated | Bearing lock: Not locked\n",
                "walker-1 | Steps: 10 | Heading: 0° N | Position: — | Compass not calibrated | Bearing lock: Not locked\n",
            ])
    }

    @Test("on a terminal the screen is redrawn in place, throttled, and the cursor comes back at the end")
    func sessionScreen() async throws {
        let pair = InMemoryPair()
        let transcript = Transcript()
        let session = WatchSession(bus: pair.client, topics: pair.topics, device: "w")
        let task = Task {
            try await session.run(output: .screen(refresh: .milliseconds(200), width: 31, colour: false), write: { transcript.append($0) })
        }
        #expect(await transcript.wait { $0.count >= 2 })
        for heading in stride(from: 0.0, to: 100, by: 1) {
            try await pair.publish("stepcompass/w/heading", #"{"status":"ok","heading":\#(heading)}"#)
        }
        #expect(await transcript.wait { $0.last?.contains("Heading: 99° E") == true })
        task.cancel()
        try await task.value
        let written = transcript.all
        #expect(written.first == WatchSession.enterScreen)
        #expect(written.last == WatchSession.leaveScreen)
        let frames = written.filter { $0.hasPrefix("\u{1B}[H") }
        #expect(frames.count >= 2)
        #expect(frames.count < 20, "100 headings must not cause 100 redraws")
        #expect(frames.allSatisfy { $0.hasSuffix("\u{1B}[J") })
    }

    @Test("a bad --device is refused")
    func badDevice() async {
        let pair = InMemoryPair()
        await #expect(throws: StepCompassClientError.self) {
            try await WatchSession(bus: pair.client, topics: pair.topics, device: "a b").run(output: .lines, write: { _ in })
        }
    }
}
