import ActivityKit
import Foundation
import ServiceRuntime

/// What the activity service knows about one device in this run (the history itself is in the store).
struct DeviceActivity {
    /// The calendar of the device's hours and days.
    var calendar: ActivityCalendar
    /// The device's own time zone (from `permissions`), if it gave one.
    var ownTimeZone: String?
    /// `permissions.motion`; nil until the device has sent its permissions.
    var authorization: MotionAuthorization?
    /// Steps per day start, for the days around the last seven; nil until loaded from the store.
    var days: [Int64: Int64]?
    var cadence: CadenceMeter
    var chooser = PlaylistChooser()
    /// The latest step message time (seconds since 1970).
    var lastTime: Double?
    /// When the service received the device's last step message: the cadence's minute runs on from there, so a
    /// device that stops sending falls back to a cadence of 0.
    var lastReceived: ServiceClock.Instant?
    /// When the last `activity` message went out.
    var lastPublished: ServiceClock.Instant?
    /// The last payload published, to publish only changes.
    var lastPayload: ActivityMessage?

    init(calendar: ActivityCalendar, cadenceWindow: Duration) {
        self.calendar = calendar
        self.cadence = CadenceMeter(window: cadenceWindow.inSeconds)
    }

    /// The cadence now: at the last step message's time, plus the time since it was received.
    func currentCadence(now: ServiceClock.Instant) -> Double {
        let time = lastTime ?? 0
        let idle = lastReceived.map { max(0, $0.duration(to: now).inSeconds) } ?? 0
        return cadence.cadence(at: time + idle)
    }
}
