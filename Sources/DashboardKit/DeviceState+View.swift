import StepCompassContract

extension DeviceState {
    /// The device as the page shows it.
    public var view: DeviceView {
        let fresh = heading.map { $0.status == "ok" } ?? false
        let shownHeading = fresh ? heading?.heading : nil
        let north = heading?.north ?? "true"
        return DeviceView(
            id: id,
            steps: shownSteps,
            stepsText: DisplayText.steps(shownSteps),
            heading: shownHeading,
            headingText: DisplayText.heading(shownHeading, cardinal: fresh ? heading?.cardinal : nil),
            headingStatus: heading?.status ?? "waiting",
            headingStatusText: headingStatusText,
            roseRotation: rose.degrees ?? 0,
            north: north,
            northText: northText(north),
            declinationText: DisplayText.declination(heading?.declination),
            accuracy: fresh ? heading?.accuracy : nil,
            accuracyText: fresh ? DisplayText.accuracy(heading?.accuracy) : nil,
            tiltText: tiltText,
            interference: heading?.interference ?? false,
            interferenceText: (heading?.interference ?? false)
                ? "Magnetic interference: the field is not what it should be here. Move away from metal, magnets and electronics"
                    + (heading?.calibration == "calibrated" ? "." : ", or calibrate (move the phone in a figure-8).")
                : nil,
            calibration: calibrationView,
            x: position?.x,
            y: position?.y,
            positionText: DisplayText.position(x: position?.x, y: position?.y),
            distanceText: DisplayText.distance(position?.distance),
            location: locationView,
            permissions: permissionsView,
            bearingLock: bearingLockView,
            activity: activityView)
    }

    /// The pedometer's count of the current session, else the position service's.
    private var shownSteps: Int? {
        steps?.wholeSteps ?? position?.sessionSteps ?? position?.steps
    }

    private var headingStatusText: String? {
        switch heading?.status {
        case nil: "Waiting for the compass…"
        case "ok": nil
        case "stale": "No sensor data for 5 seconds: the last heading is out of date."
        case "noPermission": "Motion access is denied: the compass cannot read the sensors."
        case "noSensor": "This device has no magnetometer."
        case let other?: "Compass status: \(other)"
        }
    }

    private func northText(_ north: String) -> String {
        if north == "magnetic" {
            return heading?.trueHeading == nil && location == nil
                ? "Magnetic north (true north once a location is known)"
                : "Magnetic north"
        }
        return "True north"
    }

    private var tiltText: String? {
        guard let pitch = heading?.pitch, let roll = heading?.roll else { return nil }
        return "Pitch \(DisplayText.signedDegrees(pitch)), roll \(DisplayText.signedDegrees(roll))"
    }

    private var calibrationView: DeviceView.CalibrationView {
        let state = calibration?.state ?? heading?.calibration ?? "uncalibrated"
        let coverage = calibration?.coverage
        let text: String
        var prompt: String?
        let figureEight = "Move the phone in a figure-8, turning it through every direction, until the compass is calibrated."
        switch state {
        case "calibrated": text = "Compass calibrated"
        case "calibrating":
            text = coverage.map { "Calibrating… \(DisplayText.decimal($0 * 100, places: 0))% of directions covered" } ?? "Calibrating…"
            prompt = calibration?.message ?? figureEight
        case "needsCalibration":
            text = "Compass needs calibration"
            prompt = calibration?.message ?? figureEight
        case "uncalibrated":
            text = "Compass not calibrated"
            prompt = calibration?.message ?? figureEight
        default: text = "Calibration: \(state)"
        }
        return .init(state: state, text: text, prompt: prompt, quality: calibration?.quality, coverage: coverage)
    }

    private var locationView: DeviceView.LocationView? {
        guard let location, location.latitude.isFinite, location.longitude.isFinite else { return nil }
        let altitude = location.altitude.flatMap { $0.isFinite ? $0 : nil }
        let accuracy = location.horizontalAccuracy.flatMap { $0.isFinite && $0 >= 0 && $0 < 1_000_000 ? $0 : nil }
        return .init(
            latitude: location.latitude,
            longitude: location.longitude,
            text: DisplayText.coordinate(latitude: location.latitude, longitude: location.longitude),
            mapURL: DisplayText.mapURL(latitude: location.latitude, longitude: location.longitude),
            altitude: altitude,
            elevationMetresText: altitude.map(DisplayText.elevationMetres),
            elevationFeetText: altitude.map(DisplayText.elevationFeet),
            horizontalAccuracy: accuracy,
            accuracyText: accuracy.map { "GPS position, ±\(DisplayText.grouped(Int($0.rounded()))) m" } ?? "GPS position")
    }

    private var permissionsView: DeviceView.PermissionsView {
        let motion = permissions?.motion
        let place = permissions?.location
        guard permissions != nil else {
            return .init(motion: nil, location: nil, text: "Permissions: not reported", guidance: nil)
        }
        var advice: [String] = []
        switch motion {
        case "denied", "restricted":
            advice.append("Motion & Fitness access is off: allow it for StepCompass in the phone's settings to count steps and show the heading.")
        case "notDetermined": advice.append("Motion access has not been asked for yet: open the app on the phone and allow it.")
        case "unavailable": advice.append("This device has no motion sensors: steps and heading cannot be measured.")
        default: break
        }
        switch place {
        case "denied", "restricted":
            advice.append(
                "Location access is off: the heading stays on magnetic north and the place is unknown. Allow location for StepCompass in the phone's settings."
            )
        case "notDetermined": advice.append("Location access has not been asked for yet: open the app on the phone and allow it.")
        case "unavailable": advice.append("This device has no location sensor: the heading stays on magnetic north.")
        default: break
        }
        return .init(
            motion: motion, location: place,
            text: "Motion: \(motion ?? DisplayText.unknown) · Location: \(place ?? DisplayText.unknown)",
            guidance: advice.isEmpty ? nil : advice.joined(separator: " "))
    }

    private var bearingLockView: DeviceView.BearingLockView {
        guard let lock = bearingLock, lock.locked, let bearing = lock.bearing else {
            return .init(
                locked: false, bearing: nil, deviation: nil, threshold: bearingLock?.threshold, exceeded: false,
                text: "Not locked")
        }
        var text = "Locked on \(DisplayText.bearing(bearing))"
        if let deviation = lock.deviation {
            text += ": \(DisplayText.signedDegrees(deviation)) off"
        }
        if let threshold = lock.threshold {
            text += " (limit \(DisplayText.decimal(threshold, places: 0))°)"
        }
        return .init(
            locked: true, bearing: bearing, deviation: lock.deviation, threshold: lock.threshold,
            exceeded: lock.exceeded ?? false, text: text)
    }
}
