/// A decoded export (a Sensor Logger or phyphox folder or zip): its samples in time order.
public struct PhoneRecording: Sendable, Hashable {
    /// Which app wrote it.
    public enum Format: String, Sendable, Hashable {
        /// Sensor Logger's zipped CSV export.
        case sensorLogger
        /// phyphox's CSV export.
        case phyphox
    }

    /// Which app wrote it.
    public var format: Format
    /// The device, when the export names it.
    public var deviceName: String?
    /// The platform, when the export names it (Sensor Logger `Metadata.csv`, phyphox `meta/device.csv`).
    public var platform: String?
    /// Whether ``samples`` times are seconds since the start of the recording rather than since 1970
    /// (phyphox without `meta/time.csv` and without a caller clock).
    public var timesAreRelative: Bool
    /// The samples, in time order, in contract units and the Android frame.
    public var samples: [PhoneSample]
    /// Rows skipped because they held no usable value (phyphox writes `NaN` for gaps).
    public var skippedRows: Int

    /// Creates a recording.
    public init(format: Format, deviceName: String?, platform: String?, timesAreRelative: Bool, samples: [PhoneSample], skippedRows: Int = 0) {
        self.format = format
        self.deviceName = deviceName
        self.platform = platform
        self.timesAreRelative = timesAreRelative
        self.samples = samples
        self.skippedRows = skippedRows
    }

    /// Decodes an export folder given as file name (paths allowed, e.g. `rec/meta/time.csv`) → contents,
    /// detecting the format from the files present: `meta/time.csv`/`meta/device.csv` or phyphox-style
    /// headers (`"Time (s)"`) mean phyphox; Sensor Logger files (`Accelerometer.csv` … with a `time`
    /// column, `Metadata.csv`) mean Sensor Logger. `clockStart` (seconds since 1970) anchors phyphox
    /// times when `meta/time.csv` is absent.
    public static func decode(files: [String: String], clockStart: Double? = nil) throws(PhoneFormatError) -> PhoneRecording {
        if PhyphoxExport.recognises(files) {
            return try PhyphoxExport.decode(files: files, clockStart: clockStart)
        }
        if SensorLoggerExport.recognises(files) {
            return try SensorLoggerExport.decode(files: files)
        }
        throw PhoneFormatError("no recognised export files (expected Sensor Logger or phyphox CSV files)")
    }

    /// The last path component of an export file name, e.g. `Accelerometer.csv`.
    static func baseName(_ path: String) -> String {
        String(path.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? Substring(path))
    }
}
