import Foundation

/// phyphox's CSV export (a zip or folder): one file per export set (`Accelerometer.csv`,
/// `Gyroscope.csv`, `Magnetometer.csv`, `Location.csv`, `Raw Data.csv`…) with headers such as
/// `"Time (s)","Acceleration x (m/s^2)",…`, `"Linear Acceleration x (m/s^2)"`, `"Gyroscope x (rad/s)"`,
/// `"Magnetic field x (µT)"`, `"Latitude (°)","Longitude (°)","Height (m)","Velocity (m/s)",
/// "Direction (°)","Horizontal Accuracy (m)","Vertical Accuracy (m)"`, and `meta/time.csv`
/// (`"event","experiment time","system time","system time text"`, `START`/`PAUSE` rows) and
/// `meta/device.csv` (`"property","value"`).
///
/// Columns are recognised by header, not by file name, so any export set works. phyphox writes
/// comma, tab or semicolon delimited files with a decimal point or a decimal comma (its "CSV
/// (Semicolon, decimal comma)" etc. options); both are detected from the file. `Time (s)` counts
/// from the start of the experiment; absolute times come from `meta/time.csv` (each `START` row's
/// `system time` anchors the following experiment time), else from the caller's `clockStart`, else
/// they stay relative. phyphox reports acceleration in Android's convention on both platforms.
public enum PhyphoxExport {
    /// Whether the files look like a phyphox export.
    public static func recognises(_ files: [String: String]) -> Bool {
        files.contains { path, contents in
            let lower = path.lowercased()
            if lower.hasSuffix("meta/time.csv") || lower.hasSuffix("meta/device.csv") { return true }
            guard lower.hasSuffix(".csv") else { return false }
            let head = contents.prefix(300).lowercased()
            return head.hasPrefix("\"time (s)\"") || head.hasPrefix("time (s)") || head.hasPrefix("\u{FEFF}\"time (s)\"")
        }
    }

    /// Decodes the export.
    public static func decode(files: [String: String], clockStart: Double? = nil) throws(PhoneFormatError) -> PhoneRecording {
        var anchors: [(experiment: Double, system: Double)] = []
        var deviceProperties: [String: String] = [:]
        for (path, contents) in files {
            let lower = path.lowercased()
            if lower.hasSuffix("meta/time.csv") {
                let table = CSVTable(text: contents)
                let event = table.column("event")
                let experiment = table.column("experiment time")
                let system = table.column("system time")
                for (_, row) in table.rows where table.text(row, event)?.uppercased() == "START" {
                    if case .value(let experimentTime) = table.field(row, experiment), case .value(let systemTime) = table.field(row, system) {
                        anchors.append((experimentTime, systemTime))
                    }
                }
            } else if lower.hasSuffix("meta/device.csv") {
                let table = CSVTable(text: contents)
                for (_, row) in table.rows where row.count >= 2 {
                    deviceProperties[row[0].trimmingCharacters(in: .whitespaces)] = row[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        anchors.sort { $0.experiment < $1.experiment }
        let relative = anchors.isEmpty && clockStart == nil
        func absolute(_ time: Double) -> Double {
            guard let first = anchors.first else { return (clockStart ?? 0) + time }
            let anchor = anchors.last { $0.experiment <= time } ?? first
            return anchor.system + (time - anchor.experiment)
        }

        var samples: [PhoneSample] = []
        var skipped = 0
        for (path, contents) in files.sorted(by: { $0.key < $1.key }) {
            let lower = path.lowercased()
            guard lower.hasSuffix(".csv"), !lower.hasSuffix("meta/time.csv"), !lower.hasSuffix("meta/device.csv"),
                !lower.contains("/meta/"), !lower.hasPrefix("meta/")
            else { continue }
            let fileName = PhoneRecording.baseName(path)
            let table = CSVTable(text: contents)
            let layout = Layout(header: table.header)
            guard let timeColumn = layout.time, !layout.vectors.isEmpty || layout.location != nil else { continue }
            for (line, row) in table.rows {
                let label = "\(fileName) line \(line)"
                func value(_ column: Int?) throws(PhoneFormatError) -> Double? {
                    guard let column else { return nil }
                    switch table.field(row, column) {
                    case .value(let number): return number
                    case .missing, .notFinite: return nil
                    case .notNumber(let kind): throw PhoneFormatError("\(label): \(table.header[column]) is not a number (\(kind))")
                    }
                }
                guard let experimentTime = try value(timeColumn) else {
                    skipped += 1
                    continue
                }
                let time = absolute(experimentTime)
                for vector in layout.vectors {
                    guard let x = try value(vector.columns.0), let y = try value(vector.columns.1), let z = try value(vector.columns.2) else {
                        skipped += 1
                        continue
                    }
                    let reading = Vector3(x: x, y: y, z: z) * vector.scale
                    let converted: PhoneSample.Reading =
                        switch vector.kind {
                        case .acceleration: .acceleration(reading)
                        case .userAcceleration: .userAcceleration(reading)
                        case .gravity: .gravity(reading)
                        case .magneticField: .magneticField(reading, calibrated: true)
                        case .rotationRate: .rotationRate(reading, calibrated: true)
                        }
                    samples.append(PhoneSample(time: time, reading: converted))
                }
                if let columns = layout.location {
                    guard let latitude = try value(columns.latitude), let longitude = try value(columns.longitude) else {
                        skipped += 1
                        continue
                    }
                    do throws(PhoneFormatError) {
                        let location = try LocationSample.validated(
                            timestamp: time, latitude: latitude, longitude: longitude,
                            altitude: try value(columns.height), horizontalAccuracy: try value(columns.horizontalAccuracy),
                            verticalAccuracy: try value(columns.verticalAccuracy), speed: try value(columns.velocity),
                            course: try value(columns.direction), names: ("Latitude", "Longitude")
                        )
                        samples.append(PhoneSample(time: time, reading: .location(location)))
                    } catch {
                        throw PhoneFormatError("\(label): \(error.reason)")
                    }
                }
            }
        }
        guard !samples.isEmpty || !anchors.isEmpty || !deviceProperties.isEmpty else {
            throw PhoneFormatError("no phyphox sensor columns found")
        }
        let name = [deviceProperties["deviceBrand"], deviceProperties["deviceModel"]].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return PhoneRecording(
            format: .phyphox, deviceName: name.isEmpty ? nil : name, platform: nil,
            timesAreRelative: relative, samples: samples.sortedByTime(), skippedRows: skipped
        )
    }

    /// Which columns of a phyphox file hold what.
    struct Layout {
        enum Kind { case acceleration, userAcceleration, gravity, magneticField, rotationRate }
        struct VectorColumns {
            var kind: Kind
            var columns: (Int?, Int?, Int?)
            var scale: Double
        }
        struct LocationColumns {
            var latitude: Int
            var longitude: Int
            var height: Int?
            var velocity: Int?
            var direction: Int?
            var horizontalAccuracy: Int?
            var verticalAccuracy: Int?
        }

        var time: Int?
        var vectors: [VectorColumns] = []
        var location: LocationColumns?

        init(header: [String]) {
            var vectorIndex: [String: Int] = [:]
            var named: [String: Int] = [:]
            for (index, raw) in header.enumerated() {
                let text = raw.lowercased().trimmingCharacters(in: .whitespaces)
                let name: String
                var unit = ""
                if let open = text.firstIndex(of: "(") {
                    name = text[..<open].trimmingCharacters(in: .whitespaces)
                    unit = text[text.index(after: open)...].trimmingCharacters(in: CharacterSet(charactersIn: ") "))
                } else {
                    name = text
                }
                if name == "time" || name.hasPrefix("time ") {
                    if time == nil { time = index }
                    continue
                }
                if named[name] == nil { named[name] = index }
                let words = name.split(separator: " ")
                guard let axis = words.last, ["x", "y", "z"].contains(axis), words.count >= 2 else { continue }
                let quantity = words.dropLast().joined(separator: " ")
                let kind: Kind
                var scale = 1.0
                switch quantity {
                case "linear acceleration": kind = .userAcceleration
                case "acceleration": kind = .acceleration
                case "gravity": kind = .gravity
                case "magnetic field": kind = .magneticField
                case "gyroscope", "angular velocity", "rotation rate": kind = .rotationRate
                default: continue
                }
                if kind == .rotationRate, unit.contains("deg") || unit.contains("°") { scale = Double.pi / 180 }
                if kind != .rotationRate, kind != .magneticField, unit == "g" { scale = Vector3.standardGravity }
                let key = "\(kind)"
                let position: Int
                if let existing = vectorIndex[key] {
                    position = existing
                } else {
                    position = vectors.count
                    vectorIndex[key] = position
                    vectors.append(VectorColumns(kind: kind, columns: (nil, nil, nil), scale: scale))
                }
                switch axis {
                case "x": vectors[position].columns.0 = index
                case "y": vectors[position].columns.1 = index
                default: vectors[position].columns.2 = index
                }
            }
            vectors.removeAll { $0.columns.0 == nil || $0.columns.1 == nil || $0.columns.2 == nil }
            if let latitude = named["latitude"], let longitude = named["longitude"] {
                location = LocationColumns(
                    latitude: latitude, longitude: longitude, height: named["height"] ?? named["altitude"],
                    velocity: named["velocity"] ?? named["speed"], direction: named["direction"] ?? named["course"],
                    horizontalAccuracy: named["horizontal accuracy"], verticalAccuracy: named["vertical accuracy"]
                )
            }
        }
    }
}
