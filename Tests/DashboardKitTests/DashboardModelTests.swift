import DashboardKit
import MarkerKit
import StepCompassContract
import Testing

@Suite("DashboardModel: bus messages in, views out")
struct DashboardModelTests {
    private func decode(_ kind: DashboardInput.Kind, _ json: String, device: String = "walker-1") throws -> DashboardInput {
        try #require(try DashboardInput.decode(kind, device: device, payload: Array(json.utf8)))
    }

    @Test("A walker's messages become the page's texts")
    func walkerView() throws {
        var model = DashboardModel()
        #expect(model.apply(try decode(.steps, #"{"steps": 123}"#)) == .device("walker-1", isNew: true, pathChanged: false))
        model.apply(
            try decode(
                .heading,
                #"{"status": "ok", "heading": 270.2, "north": "true", "cardinal": "W", "accuracy": 2.6, "trueHeading": 270.2, "declination": 3.2, "calibration": "calibrated", "interference": false}"#
            ))
        #expect(
            model.apply(try decode(.position, #"{"x": 12.34, "y": -4.46, "steps": 130, "sessionSteps": 123, "distance": 97.5, "updates": 13}"#))
                == .device("walker-1", isNew: false, pathChanged: true))
        model.apply(try decode(.location, #"{"latitude": 48.1374, "longitude": 11.5755, "altitude": 519}"#))
        let view = try #require(model.device("walker-1")?.view)
        #expect(view.stepsText == "Steps: 123")
        #expect(view.headingText == "Heading: 270° W")
        #expect(view.positionText == "Position: (12.3 m, –4.5 m)")
        #expect(view.accuracyText == "Accuracy: ±3°")
        #expect(view.northText == "True north")
        #expect(view.declinationText == "Declination: 3.2° E")
        #expect(view.location?.text == "48.13740° N, 11.57550° E")
        #expect(view.location?.elevationFeetText == "Elevation: 1,703 ft")
        #expect(view.calibration.prompt == nil)
        #expect(view.headingStatusText == nil)
        #expect(model.defaultDeviceID == "walker-1")
    }

    @Test("A stale heading is not shown as fresh, and the rose does not move for it")
    func staleHeading() throws {
        var model = DashboardModel()
        model.apply(try decode(.heading, #"{"status": "ok", "heading": 10, "north": "magnetic"}"#))
        model.apply(try decode(.heading, #"{"status": "stale", "heading": null, "north": "magnetic"}"#))
        let view = try #require(model.device("walker-1")?.view)
        #expect(view.headingText == "Heading: —")
        #expect(view.heading == nil)
        #expect(view.headingStatus == "stale")
        #expect(view.headingStatusText?.contains("out of date") == true)
        #expect(view.roseRotation == 10)
        #expect(view.northText == "Magnetic north (true north once a location is known)")
    }

    @Test("The rose angle unwraps across north from heading messages")
    func roseFromHeadings() throws {
        var model = DashboardModel()
        for heading in [350.0, 5, 20] {
            model.apply(try decode(.heading, #"{"status": "ok", "heading": \#(heading)}"#))
        }
        #expect(model.device("walker-1")?.view.roseRotation == 380)
    }

    @Test("Calibration prompts and interference warnings appear only when needed")
    func calibrationAndInterference() throws {
        var model = DashboardModel()
        model.apply(
            try decode(.calibration, #"{"state": "needsCalibration", "quality": 0.2, "coverage": 0.1, "message": "Move your phone in a figure-8."}"#))
        model.apply(try decode(.heading, #"{"status": "ok", "heading": 90, "interference": true}"#))
        var view = try #require(model.device("walker-1")?.view)
        #expect(view.calibration.text == "Compass needs calibration")
        #expect(view.calibration.prompt == "Move your phone in a figure-8.")
        #expect(view.interferenceText?.hasPrefix("Magnetic interference") == true)
        model.apply(try decode(.calibration, #"{"state": "calibrating", "coverage": 0.42}"#))
        #expect(model.device("walker-1")?.view.calibration.text == "Calibrating… 42% of directions covered")
        model.apply(try decode(.calibration, #"{"state": "calibrated", "quality": 0.9, "coverage": 0.8}"#))
        model.apply(try decode(.heading, #"{"status": "ok", "heading": 90, "interference": false}"#))
        view = try #require(model.device("walker-1")?.view)
        #expect(view.calibration.prompt == nil)
        #expect(view.interferenceText == nil)
    }

    @Test("Bearing lock: the text says how far off, and exceeded is carried")
    func bearingLock() throws {
        var model = DashboardModel()
        model.apply(try decode(.bearingLock, #"{"locked": true, "bearing": 45, "deviation": 12.4, "threshold": 10, "exceeded": true}"#))
        var lock = try #require(model.device("walker-1")?.view.bearingLock)
        #expect(lock.locked && lock.exceeded)
        #expect(lock.text == "Locked on 45° NE: +12° off (limit 10°)")
        model.apply(try decode(.bearingLock, #"{"locked": false, "bearing": null, "deviation": null, "threshold": 10, "exceeded": false}"#))
        lock = try #require(model.device("walker-1")?.view.bearingLock)
        #expect(!lock.locked && !lock.exceeded)
        #expect(lock.text == "Not locked")
    }

    /// Found with FuzzDashboard's boundary seeds (`Tests/FuzzCorpus/FuzzDashboard/extreme-*.json`): a heading, bearing
    /// lock or calibration with a number beyond an Int (`1e300`, valid JSON) trapped when its view was built, which took
    /// the dashboard (and the terminal client) down.
    @Test("Numbers far out of range are shown as they are, not a crash")
    func outOfRangeNumbers() throws {
        var model = DashboardModel()
        model.apply(try decode(.heading, #"{"status":"ok","heading":-1e300,"pitch":1e300,"roll":-1e300}"#))
        model.apply(try decode(.bearingLock, #"{"locked":true,"bearing":-1e300,"deviation":1e300,"threshold":-1e300,"exceeded":true}"#))
        model.apply(try decode(.calibration, #"{"state":"calibrating","coverage":1e300}"#))
        let view = try #require(model.device("walker-1")?.view)
        #expect(view.headingText.hasPrefix("Heading: "))
        #expect(view.tiltText == "Pitch 1e+300°, roll -1e+300°")
        #expect(view.bearingLock.text.contains("1e+300° off"))
        #expect(view.calibration.text == "Calibrating… 1e+302% of directions covered")
    }

    @Test("Permissions: guidance when denied, none when authorized")
    func permissions() throws {
        var model = DashboardModel()
        model.apply(try decode(.permissions, #"{"motion": "denied", "location": "authorized"}"#))
        let denied = try #require(model.device("walker-1")?.view.permissions)
        #expect(denied.text == "Motion: denied · Location: authorized")
        #expect(denied.guidance?.contains("Motion & Fitness") == true)
        model.apply(try decode(.permissions, #"{"motion": "authorized", "location": "authorized"}"#))
        #expect(model.device("walker-1")?.view.permissions.guidance == nil)
    }

    @Test("The walked path grows, skips repeats, is capped, and restarts after a position reset")
    func path() throws {
        var model = DashboardModel(pathLimit: 3)
        for (index, x) in [0.0, 7.5, 7.5, 15, 22.5].enumerated() {
            model.apply(try decode(.position, #"{"x": \#(x), "y": 0, "updates": \#(index)}"#))
        }
        #expect(model.device("walker-1")?.path.map(\.x) == [7.5, 15, 22.5])
        model.apply(try decode(.position, #"{"x": 0, "y": 0, "updates": 0}"#))
        #expect(model.device("walker-1")?.path.map(\.x) == [0])
    }

    @Test("Devices keep the order they were first seen in, and the cap ignores the rest")
    func deviceOrderAndCap() throws {
        var model = DashboardModel(maxDevices: 2)
        model.apply(try decode(.steps, #"{"steps": 1}"#, device: "b"))
        model.apply(try decode(.steps, #"{"steps": 1}"#, device: "a"))
        #expect(model.apply(try decode(.steps, #"{"steps": 1}"#, device: "c")) == DashboardModel.Change.none)
        #expect(model.deviceIDs == ["b", "a"])
        #expect(model.defaultDeviceID == "b")
    }

    @Test("Markers: status in words, retry offered after a failure, pins placed inside the map")
    func markers() throws {
        var model = DashboardModel()
        #expect(model.markersView.statusText == "Markers: waiting for the marker service…")
        model.apply(
            try decode(
                .markersStatus,
                #"{"state": "failed", "count": 0, "rejected": 0, "source": "http://x", "fromCache": false, "error": {"code": "http", "message": "HTTP 500 from the source"}, "retryAt": null}"#
            ))
        #expect(model.markersView.retryAvailable)
        #expect(model.markersView.errorText == "HTTP 500 from the source (http)")
        let collection =
            #"{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "a", "properties": {"name": "West"}, "geometry": {"type": "Point", "coordinates": [11.50, 48.10]}}, {"type": "Feature", "id": "b", "properties": {"name": "East"}, "geometry": {"type": "Point", "coordinates": [11.60, 48.20]}}]}"#
        model.apply(try decode(.markersCollection, collection))
        model.apply(try decode(.markersStatus, #"{"state": "ready", "count": 2, "rejected": 1, "fromCache": true}"#))
        let view = model.markersView
        #expect(view.statusText == "Markers: 2 markers ready, 1 rejected (from the cache)")
        #expect(!view.retryAvailable)
        let west = try #require(view.markers.first { $0.id == "a" })
        let east = try #require(view.markers.first { $0.id == "b" })
        #expect(west.u < east.u)
        #expect(west.v > east.v)
        for pin in view.markers { #expect((0...1).contains(pin.u) && (0...1).contains(pin.v)) }
    }

    @Test("Service statuses are listed by name; a cleared status is kept as unknown")
    func services() throws {
        var model = DashboardModel()
        model.apply(
            try decode(
                .serviceStatus("compass"), #"{"state": "online", "service": "compass", "version": "1", "startedAt": "2026-11-22T10:00:00.000Z"}"#))
        model.apply(try decode(.serviceStatus("position"), #"{"state": "offline", "service": "position"}"#))
        #expect(model.servicesView.map(\.text) == ["compass: online since 2026-11-22T10:00:00.000Z", "position: offline"])
        let cleared = try DashboardInput.decode(.serviceStatus("compass"), device: "", payload: [])
        #expect(cleared == .serviceStatus(service: "compass", nil))
    }

    @Test("Unreadable messages give a clear reason; an empty device payload is ignored")
    func badInput() throws {
        #expect(throws: DashboardInputError(what: "heading", reason: "not valid JSON")) {
            try DashboardInput.decode(.heading, device: "w", payload: Array("{".utf8))
        }
        #expect(throws: DashboardInputError(what: "position", reason: "missing field `x`")) {
            try DashboardInput.decode(.position, device: "w", payload: Array(#"{"y": 1}"#.utf8))
        }
        #expect(throws: DashboardInputError(what: "steps", reason: "`steps` is not a Int")) {
            try DashboardInput.decode(.steps, device: "w", payload: Array(#"{"steps": "many"}"#.utf8))
        }
        #expect(try DashboardInput.decode(.heading, device: "w", payload: []) == nil)
    }

    @Test("Nearest replies list names and miles in the service's order; errors carry their code")
    func nearest() throws {
        let reply = NearestReply(
            origin: .init(id: "a", name: "Marienplatz", latitude: 48.137, longitude: 11.575),
            nearest: [
                .init(id: "b", name: "Viktualienmarkt", latitude: 48.135, longitude: 11.576, distanceMiles: 0.15),
                .init(id: "c", name: "Odeonsplatz", latitude: 48.142, longitude: 11.577, distanceMiles: 0.4),
            ])
        let view = NearestView(reply: reply)
        #expect(view.title == "Nearest to Marienplatz")
        #expect(view.items.map(\.distanceText) == ["0.15 mi", "0.40 mi"])
        let failed = NearestView(reply: NearestReply(origin: nil, nearest: nil, error: .init(code: "notFound", message: "no marker with id 'x'")))
        #expect(failed.errorCode == "notFound")
        #expect(failed.items.isEmpty)
    }
}
