public import Foundation
public import PhoneFormats

/// Reads a phone export as `--replay` does: a phyphox or Sensor Logger CSV export, a folder or a zip, its kind told
/// from the content.
public enum PhoneExport {
    /// The decoded export.
    /// - Throws: ``SensorsError`` (`unreadableRecording`) naming the file and what was wrong or expected, also when
    ///   `file` is not a folder or a zip.
    public static func read(_ file: URL) throws -> PhoneRecording {
        let input = try ReplayInput.detect(file)
        guard input != .recording else {
            throw SensorsError(.unreadableRecording, "'\(file.path)' is not a phone export: a phyphox or Sensor Logger export is a folder or a zip")
        }
        return try PhoneExportReplay<ContinuousClock>.decode(file, as: input)
    }
}
