public import MarkerKit
public import StepCompassContract

/// One message from the bus, decoded: what the dashboard's view model is built from.
///
/// The dashboard service turns a topic into an ``Kind`` (it owns the topic names), and
/// ``decode(_:device:payload:)`` turns the payload into the matching report. Keeping the decoding
/// here, beside the view model, means the terminal client and the web dashboard read the contract the
/// same way.
public enum DashboardInput: Sendable, Hashable {
    case steps(device: String, StepsMessage)
    case heading(device: String, HeadingMessage)
    case position(device: String, PositionMessage)
    case calibration(device: String, CalibrationMessage)
    case bearingLock(device: String, BearingLockMessage)
    case location(device: String, LocationMessage)
    case permissions(device: String, PermissionsMessage)
    /// The activity service's summary of the device's week (`stepcompass/{device}/activity`).
    case activity(device: String, ActivityMessage)
    /// The journal's current walk (`stepcompass/{device}/journal`).
    case journal(device: String, JournalMessage)
    /// A photo point of the current walk (`stepcompass/{device}/journal/photo`).
    case journalPhoto(device: String, JournalPhotoPoint)
    case markersStatus(MarkersStatusMessage)
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
        case .steps:
            let steps = try decoder.decode(StepsMessage.self, what: "steps")
            // The dashboard counts in integers: a fraction or a count beyond `Int` is unreadable (a negative one shows).
            guard steps.wholeSteps != nil else {
                throw DashboardInputError(what: "steps", reason: "`steps` is \(steps.steps), not a whole number")
            }
            return .steps(device: device, steps)
        case .heading:
            let heading = try decoder.decode(HeadingMessage.self, what: "heading")
            // `status` is the one field the dashboard needs (an unknown value still shows).
            guard heading.status != nil else { throw DashboardInputError(what: "heading", reason: "missing field `status`") }
            return .heading(device: device, heading)
        case .position: return .position(device: device, try decoder.decode(PositionMessage.self, what: "position"))
        case .calibration:
            return .calibration(device: device, try decoder.decode(CalibrationMessage.self, what: "calibration"))
        case .bearingLock:
            return .bearingLock(device: device, try decoder.decode(BearingLockMessage.self, what: "bearing-lock"))
        case .location: return .location(device: device, try decoder.decode(LocationMessage.self, what: "location"))
        case .permissions:
            return .permissions(device: device, try decoder.decode(PermissionsMessage.self, what: "permissions"))
        case .activity: return .activity(device: device, try decoder.decode(ActivityMessage.self, what: "activity"))
        case .journal: return .journal(device: device, try decoder.decode(JournalMessage.self, what: "journal"))
        case .journalPhoto:
            return .journalPhoto(device: device, try decoder.decode(JournalPhotoPoint.self, what: "journal photo"))
        case .markersStatus: return .markersStatus(try decoder.decode(MarkersStatusMessage.self, what: "markers status"))
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
