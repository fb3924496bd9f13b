public import MarkerKit

/// One message from the bus, decoded: what the dashboard's view model is built from.
///
/// The dashboard service turns a topic into an ``Kind`` (it owns the topic names), and
/// ``decode(_:device:payload:)`` turns the payload into the matching report. Keeping the decoding
/// here, beside the view model, means the terminal client and the web dashboard read the contract the
/// same way.
public enum DashboardInput: Sendable, Hashable {
    case steps(device: String, StepsReport)
    case heading(device: String, HeadingReport)
    case position(device: String, PositionReport)
    case calibration(device: String, CalibrationReport)
    case bearingLock(device: String, BearingLockReport)
    case location(device: String, LocationReport)
    case permissions(device: String, PermissionsReport)
    /// The activity service's summary of the device's week (`stepcompass/{device}/activity`).
    case activity(device: String, ActivityReport)
    /// The journal's current walk (`stepcompass/{device}/journal`).
    case journal(device: String, JournalReport)
    /// A photo point of the current walk (`stepcompass/{device}/journal/photo`).
    case journalPhoto(device: String, PhotoPointReport)
    case markersStatus(MarkersStatusReport)
    case markersCollection([Marker])
    /// A service's status; nil when the retained status was cleared.
    case serviceStatus(service: String, ServiceStatusReport?)

    /// Whether it is one of the journal's messages (the page's Journal panel changes, not the device's view).
    public var isJournal: Bool {
        switch self {
        case .journal, .journalPhoto: true
        default: false
        }
    }

    /// The topics the view model reads.
    public enum Kind: Sendable, Hashable {
        case steps, heading, position, calibration, bearingLock, location, permissions, activity, journal, journalPhoto
        case markersStatus, markersCollection
        case serviceStatus(String)
    }

    /// Decodes a payload of the given kind.
    ///
    /// - Parameters:
    ///   - kind: Which topic the payload came from.
    ///   - device: The device id for per-device topics (ignored for the others).
    ///   - payload: The message's bytes (UTF-8 JSON).
    /// - Returns: The input, or nil for an empty payload (a cleared retained message), which the
    ///   dashboard ignores except for a service status.
    /// - Throws: ``DashboardInputError`` naming the topic kind and what was wrong.
    public static func decode(_ kind: Kind, device: String, payload: [UInt8]) throws(DashboardInputError) -> DashboardInput? {
        if payload.isEmpty {
            if case .serviceStatus(let service) = kind { return .serviceStatus(service: service, nil) }
            return nil
        }
        let decoder = ReportDecoder(payload: payload)
        switch kind {
        case .steps: return .steps(device: device, try decoder.decode(StepsReport.self, what: "steps"))
        case .heading: return .heading(device: device, try decoder.decode(HeadingReport.self, what: "heading"))
        case .position: return .position(device: device, try decoder.decode(PositionReport.self, what: "position"))
        case .calibration:
            return .calibration(device: device, try decoder.decode(CalibrationReport.self, what: "calibration"))
        case .bearingLock:
            return .bearingLock(device: device, try decoder.decode(BearingLockReport.self, what: "bearing-lock"))
        case .location: return .location(device: device, try decoder.decode(LocationReport.self, what: "location"))
        case .permissions:
            return .permissions(device: device, try decoder.decode(PermissionsReport.self, what: "permissions"))
        case .activity: return .activity(device: device, try decoder.decode(ActivityReport.self, what: "activity"))
        case .journal: return .journal(device: device, try decoder.decode(JournalReport.self, what: "journal"))
        case .journalPhoto:
            return .journalPhoto(device: device, try decoder.decode(PhotoPointReport.self, what: "journal photo"))
        case .markersStatus: return .markersStatus(try decoder.decode(MarkersStatusReport.self, what: "markers status"))
        case .markersCollection:
            do {
                return .markersCollection(try MarkerCollectionDecoder().decode(payload).accepted)
            } catch {
                throw DashboardInputError(what: "markers collection", reason: "\(error)")
            }
        case .serviceStatus(let service):
            return .serviceStatus(service: service, try decoder.decode(ServiceStatusReport.self, what: "service status"))
        }
    }
}
