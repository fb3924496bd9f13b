import Foundation

/// Sensor Logger's CSV export (a zip or folder): one file per sensor, `Accelerometer.csv`,
/// `Gravity.csv`, `TotalAcceleration.csv` (Android), `Magnetometer.csv`, `Gyroscope.csv`,
/// `Location.csv`, `Pedometer.csv`…, each with `time` (UTC ns), `seconds_elapsed` and the sensor's
/// fields (`z,y,x`; location `bearingAccuracy,…,latitude`), read by header name in any order, plus
/// `Metadata.csv` (`version,device name,recording time,platform,…`). The platform in
/// `Metadata.csv` decides the convention; without it, ``SensorLoggerConvention/detect(in:)``.
public enum SensorLoggerExport {
    /// Whether the files look like a Sensor Logger export.
    public static func recognises(_ files: [String: String]) -> Bool {
        files.keys.contains { path in
            let name = PhoneRecording.baseName(path).lowercased()
            guard name.hasSuffix(".csv") else { return false }
            let sensor = String(name.dropLast(4))
            return sensor == "metadata" || SensorLoggerReading.knownNames.contains(sensor)
        }
    }

    /// Decodes the export; `convention` overrides `Metadata.csv` and detection.
    public static func decode(files: [String: String], convention: SensorLoggerConvention? = nil) throws(PhoneFormatError) -> PhoneRecording {
        var readings: [SensorLoggerReading] = []
        var platform: String?
        var deviceName: String?
        var standardisation: String?
        for (path, contents) in files.sorted(by: { $0.key < $1.key }) {
            let fileName = PhoneRecording.baseName(path)
            let lower = fileName.lowercased()
            guard lower.hasSuffix(".csv") else { continue }
            let sensor = String(lower.dropLast(4))
            let table = CSVTable(text: contents)
            if sensor == "metadata" {
                if let row = table.rows.first?.fields {
                    platform = table.text(row, table.column("platform"))
                    deviceName = table.text(row, table.column("device name"))
                    standardisation = table.text(row, table.column("standardisation"))
                }
                continue
            }
            guard SensorLoggerReading.knownNames.contains(sensor) else { continue }
            guard let timeColumn = table.column("time") else { throw PhoneFormatError("\(fileName): no time column") }
            for (line, row) in table.rows {
                let label = "\(fileName) line \(line)"
                let timeText = table.text(row, timeColumn)?.trimmingCharacters(in: .whitespaces) ?? ""
                guard let nanoseconds = Int64(timeText) ?? Double(timeText).flatMap({ $0.isFinite && abs($0) < 9.2e18 ? Int64($0) : nil }),
                    nanoseconds > 0
                else {
                    throw PhoneFormatError("\(label): time is \(timeText.isEmpty ? "missing" : "not a positive integer")")
                }
                do throws(PhoneFormatError) {
                    if let reading = try SensorLoggerReading.make(
                        name: sensor, timeNanoseconds: nanoseconds, prefix: "",
                        field: { table.field(row, table.column($0)) }
                    ) {
                        readings.append(reading)
                    }
                } catch {
                    throw PhoneFormatError("\(label): \(error.reason)")
                }
            }
        }
        let chosen =
            convention
            ?? SensorLoggerConvention.fromMetadata(platform: platform, standardisation: standardisation)
            ?? SensorLoggerConvention.detect(in: readings)
            ?? .android
        let samples = SensorLoggerReading.samples(readings, convention: chosen).sortedByTime()
        return PhoneRecording(
            format: .sensorLogger, deviceName: deviceName, platform: platform ?? chosen.platform?.rawValue,
            timesAreRelative: false, samples: samples
        )
    }
}
