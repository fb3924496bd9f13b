import DashboardKit
import Testing

@Suite("Activity panel: the week's steps and the music that fits them")
struct ActivityViewTests {
    static let authorized = #"""
        {"timestamp": "2026-11-22T10:15:30.250Z", "timeZone": "UTC", "today": 4321,
         "days": [8000, 12000, 3000, 0, 9000, 7000, 4321], "weekTotal": 43321, "dailyMean": 6188.7,
         "band": "lowActive", "cadence": 104, "authorization": "authorized", "guidance": null,
         "suggestion": {"playlist": {"id": "focused", "name": "Focused", "description": "Steady beats to think by.",
                        "tempo": [95, 115], "link": "https://music.example/focused"}, "reason": "A steady walk."}}
        """#

    private func view(_ json: String) throws -> ActivityView {
        var model = DashboardModel()
        let input = try #require(try DashboardInput.decode(.activity, device: "walker-1", payload: Array(json.utf8)))
        #expect(model.apply(input) == .device("walker-1", isNew: true, pathChanged: false))
        return try #require(model.device("walker-1")?.view.activity)
    }

    @Test("An authorized week: today, seven named bars, band, cadence and the playlist")
    func authorizedWeek() throws {
        let activity = try view(Self.authorized)
        #expect(activity.reported)
        #expect(activity.todayText == "Today: 4,321 steps")
        #expect(activity.days.map(\.steps) == [8000, 12000, 3000, 0, 9000, 7000, 4321])
        #expect(activity.days.map(\.label) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Today"])
        #expect(activity.days.first?.text == "Monday 16 Nov: 8,000 steps")
        #expect(activity.days.last?.text == "Today (Sunday 22 Nov): 4,321 steps")
        #expect(activity.days.last?.isToday == true)
        #expect(activity.days.last?.name == "Today (Sunday 22 Nov)")
        #expect(activity.maxSteps == 12000)
        #expect(activity.weekText == "This week: 43,321 steps, 6,189 a day on average")
        #expect(activity.bandText == "Low active")
        #expect(activity.bandDetailText == "Activity level: Low active (5,000–7,499 steps a day on average)")
        #expect(activity.cadenceText == "Cadence: 104 steps/min")
        #expect(activity.guidance == nil)
        #expect(activity.updatedText == "As of 10:15 (UTC)")
        let playlist = try #require(activity.playlist)
        #expect(playlist.name == "Focused")
        #expect(playlist.description == "Steady beats to think by.")
        #expect(playlist.tempoText == "95–115 BPM")
        #expect(playlist.link == "https://music.example/focused")
        #expect(playlist.linkText == "Open Focused")
        #expect(playlist.reason == "A steady walk.")
    }

    @Test("Days are named in the device's time zone")
    func timeZone() throws {
        // 23:30 UTC on Saturday is already Sunday in Tokyo.
        let json = #"{"timestamp": "2026-11-21T23:30:00Z", "timeZone": "Asia/Tokyo", "days": [1, 2, 3, 4, 5, 6, 7], "cadence": 0}"#
        let activity = try view(json)
        #expect(activity.days.map(\.label) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Today"])
        #expect(activity.todayText == "Today: 7 steps")
        #expect(activity.days.first?.text == "Monday 16 Nov: 1 step")
        #expect(activity.updatedText == "As of 08:30 (Asia/Tokyo)")
    }

    @Test("No cadence while standing; without a timestamp the bars count days back")
    func standingAndUndated() throws {
        let activity = try view(#"{"days": [0, 0, 0, 0, 0, 10, 1], "cadence": 0, "band": "sedentary"}"#)
        #expect(activity.cadenceText == nil)
        #expect(activity.todayText == "Today: 1 step")
        #expect(activity.days.map(\.label) == ["–6 d", "–5 d", "–4 d", "–3 d", "–2 d", "Yest.", "Today"])
        #expect(activity.days.map(\.text)[4...] == ["2 days ago: 0 steps", "Yesterday: 10 steps", "Today: 1 step"])
        #expect(activity.bandText == "Sedentary")
        #expect(activity.updatedText == nil)
    }

    @Test(
        "Not authorized: the guidance instead of the suggestion",
        arguments: [
            ("notDetermined", "Allow motion access"), ("denied", "Turn it on in Settings"),
            ("restricted", "restricted on this device"), ("unavailable", "no step counter"),
        ])
    func guidance(authorization: String, says: String) throws {
        // Without the service's guidance the view model gives its own; with it, the service's words.
        let withoutGuidance = try view(#"{"days": [1, 2, 3, 4, 5, 6, 7], "authorization": "\#(authorization)", "suggestion": null}"#)
        #expect(withoutGuidance.guidance?.contains(says) == true)
        #expect(withoutGuidance.playlist == nil)
        let withGuidance = try view(
            #"""
            {"days": [1, 2, 3, 4, 5, 6, 7], "authorization": "\#(authorization)", "guidance": "Ask nicely.",
             "suggestion": {"playlist": {"id": "x", "name": "X"}, "reason": "r"}}
            """#)
        #expect(withGuidance.guidance == "Ask nicely.")
        #expect(withGuidance.playlist == nil)
    }

    @Test("A device without an activity message says so; a link that is not http(s) is not offered")
    func missingAndUnsafe() throws {
        var model = DashboardModel()
        model.apply(try #require(try DashboardInput.decode(.steps, device: "walker-1", payload: Array(#"{"steps": 3}"#.utf8))))
        let none = try #require(model.device("walker-1")?.view.activity)
        #expect(!none.reported)
        #expect(none.todayText == "Today: —")
        #expect(none.days.isEmpty)
        let unsafe = try view(
            #"""
            {"days": [1], "authorization": "authorized",
             "suggestion": {"playlist": {"id": "x", "name": "X", "tempo": [100, 100], "link": "javascript:alert(1)"}}}
            """#)
        #expect(unsafe.playlist?.link == nil)
        #expect(unsafe.playlist?.tempoText == "100 BPM")
        #expect(unsafe.days.count == 1)
        #expect(throws: DashboardInputError.self) {
            try DashboardInput.decode(.activity, device: "walker-1", payload: Array(#"{"today": 3}"#.utf8))
        }
    }

    @Test("Activity texts")
    func texts() {
        #expect(DisplayText.todaySteps(1_234_567) == "Today: 1,234,567 steps")
        #expect(DisplayText.cadence(103.6) == "Cadence: 104 steps/min")
        #expect(DisplayText.cadence(0) == nil)
        #expect(DisplayText.tempo([120, 100]) == "100–120 BPM")
        #expect(DisplayText.tempo([]) == nil)
        #expect(DisplayText.activityBand("highlyActive") == "Highly active")
        #expect(DisplayText.activityBand("somethingNew") == "somethingNew")
    }
}
