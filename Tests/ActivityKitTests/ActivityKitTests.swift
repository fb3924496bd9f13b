import ActivityKit
import Foundation
import Testing

@Suite("StepTally: the contract's rules for cumulative counts")
struct StepTallyTests {
    @Test("a first count adds in full, a higher one its difference, a repeat nothing, a lower one a new session")
    func rules() {
        var tally = StepTally()
        #expect(tally.apply(37) == .more(delta: 37))
        #expect(tally.apply(50) == .more(delta: 13))
        #expect(tally.apply(50) == .repeated)
        #expect(tally.apply(8) == .newSession(delta: 8))
        #expect(tally.apply(8).delta == 0)
        #expect(tally.total == 58)
        #expect(tally.lastCount == 8)
    }

    @Test("counts delivered again after newer ones (a broker's redelivery after a crash) add nothing")
    func redelivered() {
        var tally = StepTally()
        for count in [10, 20, 30, 40] { tally.apply(Int64(count)) }
        #expect(tally.apply(20) == .redelivered)
        #expect(tally.apply(30) == .redelivered)
        #expect(tally.apply(40) == .repeated)
        #expect(tally.apply(50) == .more(delta: 10))
        #expect(tally.total == 50)
        #expect(tally.recent == [10, 20, 30, 40, 50])
    }

    @Test("a new session that begins on a recent count is counted in full from its next count")
    func sessionOnRecentCount() {
        var tally = StepTally()
        for count in [10, 20, 30] { tally.apply(Int64(count)) }
        #expect(tally.apply(20) == .redelivered)
        #expect(tally.apply(25) == .newSession(delta: 25))
        #expect(tally.total == 55)
        #expect(tally.recent == [25])
    }

    @Test("only the last 64 counts of a session are recent; a lower count before them is a new session")
    func recentLimit() {
        var tally = StepTally()
        for count in 1...100 { tally.apply(Int64(count)) }
        #expect(tally.recent == Array(37...100))
        #expect(tally.apply(37) == .redelivered)
        #expect(tally.apply(36) == .newSession(delta: 36))
        #expect(tally.total == 136)
    }

    @Test("a lower count stamped no later than the last one applied is a redelivery, however old (a broker's older save)")
    func staleByTime() {
        var tally = StepTally()
        for count in 1...500 { tally.apply(Int64(count), at: Double(count)) }
        #expect(tally.lastTime == 500)
        // Far beyond the recent counts, but stamped before the last count applied: an old message sent again.
        #expect(tally.apply(100, at: 100) == .redelivered)
        #expect(tally.apply(300, at: 499.5) == .redelivered)
        #expect(tally.lastTime == 500)
        // The same count stamped later is a new session (the device restarted its count).
        #expect(tally.apply(100, at: 600) == .newSession(delta: 100))
        #expect(tally.apply(110, at: 610) == .more(delta: 10))
        #expect(tally.total == 610)
        // Without a time, only the recent counts tell a redelivery.
        #expect(tally.apply(50) == .newSession(delta: 50))
        #expect(tally.lastTime == 610)
    }

    @Test("a tally made from a last count alone takes that count as its only recent one")
    func fromLastCount() {
        #expect(StepTally(lastCount: 12, total: 40).recent == [12])
        #expect(StepTally().recent.isEmpty)
        #expect(StepTally(total: 9, recent: Array(1...100)).recent == Array(37...100))
    }

    @Test("a new session of zero adds nothing but resets the baseline")
    func zeroSession() {
        var tally = StepTally(lastCount: 100, total: 100)
        #expect(tally.apply(0) == .newSession(delta: 0))
        #expect(tally.apply(5) == .more(delta: 5))
        #expect(tally.total == 105)
    }
}

@Suite("ActivityCalendar: minutes, hours and days in a time zone")
struct ActivityCalendarTests {
    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test("Berlin in summer: the day starts at 22:00 UTC the evening before")
    func berlin() throws {
        let calendar = try #require(ActivityCalendar(identifier: "Europe/Berlin"))
        let buckets = calendar.buckets(of: Self.date("2026-07-01T21:30:45Z"))  // 23:30:45 local
        #expect(buckets.minute == Int64(Self.date("2026-07-01T21:30:00Z").timeIntervalSince1970))
        #expect(buckets.hour == Int64(Self.date("2026-07-01T21:00:00Z").timeIntervalSince1970))
        #expect(buckets.day == Int64(Self.date("2026-06-30T22:00:00Z").timeIntervalSince1970))
    }

    @Test("Kolkata's hours start at :30 UTC")
    func halfHourZone() throws {
        let calendar = try #require(ActivityCalendar(identifier: "Asia/Kolkata"))
        let buckets = calendar.buckets(of: Self.date("2026-03-10T10:10:00Z"))  // 15:40 local
        #expect(buckets.hour == Int64(Self.date("2026-03-10T09:30:00Z").timeIntervalSince1970))
        #expect(buckets.day == Int64(Self.date("2026-03-09T18:30:00Z").timeIntervalSince1970))
    }

    @Test("a week across the change to summer time has a 23-hour day")
    func daylightSaving() throws {
        let calendar = try #require(ActivityCalendar(identifier: "Europe/Berlin"))
        let days = calendar.dayStarts(endingWith: Self.date("2026-03-31T12:00:00Z"), count: 7)
        #expect(days.count == 7)
        let lengths = zip(days, days.dropFirst()).map { $1 - $0 }
        #expect(lengths.contains(23 * 3_600))
        #expect(days.last == Int64(Self.date("2026-03-30T22:00:00Z").timeIntervalSince1970))
    }

    @Test("an unknown zone is nil")
    func unknownZone() {
        #expect(ActivityCalendar(identifier: "Mars/Olympus") == nil)
    }
}

@Suite("WeekSummary and ActivityBand")
struct WeekSummaryTests {
    @Test("seven days, oldest first, padded in front; today, total and mean")
    func summary() {
        let week = WeekSummary(days: [1_000, 2_000, 4_000])
        #expect(week.days == [0, 0, 0, 0, 1_000, 2_000, 4_000])
        #expect(week.today == 4_000)
        #expect(week.weekTotal == 7_000)
        #expect(week.dailyMean == 1_000)
        #expect(week.band == .sedentary)
    }

    @Test(
        "the Tudor-Locke bands at their edges",
        arguments: [
            (4_999.9, ActivityBand.sedentary), (5_000, .lowActive), (7_499, .lowActive), (7_500, .somewhatActive),
            (9_999, .somewhatActive), (10_000, .active), (12_499, .active), (12_500, .highlyActive),
        ])
    func bands(mean: Double, band: ActivityBand) {
        #expect(ActivityBand(dailyMean: mean) == band)
    }
}

@Suite("CadenceMeter: steps per minute over the last minute")
struct CadenceMeterTests {
    @Test("a first count or a new session does not count; continuing messages do, for a minute")
    func cadence() {
        var meter = CadenceMeter()
        meter.record(delta: 5_000, at: 0, continuesSession: true)  // the first message: unknown stretch
        #expect(meter.cadence(at: 0) == 0)
        meter.record(delta: 50, at: 30, continuesSession: true)
        meter.record(delta: 55, at: 60, continuesSession: true)
        #expect(meter.cadence(at: 60) == 105)
        #expect(meter.cadence(at: 95) == 55)
        meter.record(delta: 3, at: 61, continuesSession: false)
        #expect(meter.cadence(at: 61) == 105)
        meter.record(delta: 40, at: 200, continuesSession: true)  // after a gap of more than a minute
        #expect(meter.cadence(at: 200) == 0)
    }

    @Test("a shorter window is scaled to steps per minute; once a window passes without steps the cadence is 0")
    func shortWindow() {
        var meter = CadenceMeter(window: 10)
        meter.record(delta: 0, at: 0, continuesSession: true)
        meter.record(delta: 9, at: 5, continuesSession: true)
        meter.record(delta: 8, at: 10, continuesSession: true)
        #expect(meter.cadence(at: 10) == 102)  // 17 steps in 10 s
        #expect(meter.cadence(at: 15.5) == 48)  // only the 8 of the last 10 s
        #expect(meter.cadence(at: 20.1) == 0)
    }
}

@Suite("Playlists: the catalogue, the mapping and the tempo hysteresis")
struct PlaylistTests {
    static let catalogue = PlaylistCatalogue.standard

    @Test("Config/playlists.json is the built-in catalogue")
    func shippedFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("Config/playlists.json"))
        #expect(try PlaylistCatalogue.decode(data) == .standard)
    }

    @Test("invalid catalogues are refused with a reason")
    func invalid() throws {
        #expect(throws: PlaylistCatalogue.Invalid.self) { try PlaylistCatalogue.decode(Data("[]".utf8)) }
        var thresholds = PlaylistCatalogue.Thresholds()
        thresholds.focused = 20_000
        #expect(throws: PlaylistCatalogue.Invalid.self) { try PlaylistCatalogue(thresholds: thresholds, playlists: Self.catalogue.playlists) }
        #expect(throws: PlaylistCatalogue.Invalid.self) {
            try PlaylistCatalogue(playlists: Self.catalogue.playlists.filter { $0.use != .walking })
        }
        var broken = Self.catalogue.playlists
        broken[0].tempo = [120, 60]
        #expect(throws: PlaylistCatalogue.Invalid.self) { try PlaylistCatalogue(playlists: broken) }
    }

    @Test(
        "the daily mean picks Relaxing, Focused or Energizing",
        arguments: [
            (4_999.0, "relaxing"), (5_000, "focused"), (9_999, "focused"), (10_000, "energizing"), (20_000, "energizing"),
        ])
    func moods(mean: Double, id: String) throws {
        var chooser = PlaylistChooser()
        let week = WeekSummary(days: [Int64(mean * 7)])
        let picked = chooser.suggest(week: week, cadence: 0, catalogue: Self.catalogue)
        let suggestion = try #require(picked)
        #expect(suggestion.playlist.id == id)
        #expect(suggestion.reason.contains(week.band.rawValue))
    }

    @Test("walking: the tempo follows the cadence, with hysteresis at a boundary")
    func walking() throws {
        var chooser = PlaylistChooser()
        let week = WeekSummary(days: [])
        func pick(_ cadence: Double) -> String? {
            chooser.suggest(week: week, cadence: cadence, catalogue: Self.catalogue)?.playlist.id
        }
        let picks = [59.0, 100, 117, 121, 122, 110, 108, 300].map { pick($0) }
        // 59: not walking. 100: walk (95-115); 117 and 121 stay within its 6 BPM hysteresis, 122 leaves it for
        // brisk (115-130), which is kept down to 109; 108 is walk again; 300 the fastest.
        #expect(picks == ["relaxing", "walk", "walk", "walk", "brisk-walk", "brisk-walk", "walk", "power-walk"])
        var fresh = PlaylistChooser()
        let reason = fresh.suggest(week: week, cadence: 122, catalogue: Self.catalogue)?.reason ?? ""
        #expect(reason.contains("122 steps a minute"))
    }

    @Test("numbers are grouped by thousands")
    func grouping() {
        #expect(PlaylistChooser.grouped(6_234) == "6,234")
        #expect(PlaylistChooser.grouped(1_234_567) == "1,234,567")
        #expect(PlaylistChooser.grouped(999) == "999")
    }
}

@Suite("MotionAuthorization guidance")
struct MotionAuthorizationTests {
    @Test("only authorized allows a suggestion; every other state says what to do")
    func guidance() {
        #expect(MotionAuthorization.authorized.allowsSuggestion)
        #expect(MotionAuthorization.authorized.guidance == nil)
        #expect(MotionAuthorization.notDetermined.guidance?.contains("Allow motion access") == true)
        #expect(MotionAuthorization.denied.guidance?.contains("Settings") == true)
        #expect(MotionAuthorization.restricted.guidance?.contains("restricted") == true)
        #expect(MotionAuthorization.unavailable.guidance?.contains("no step counter") == true)
    }
}
