import DashboardKit
import Foundation
import FuzzSupport
import StepCompassContract

/// libFuzzer target: what the dashboard reads from outside, other than the command bodies of its HTTP API
/// (`FuzzCommands` reads those as `DashboardRoutes.command` does): every bus message it shows
/// (`DashboardInput.decode` for every kind), and the services' replies it turns into API answers (`markers/nearest`,
/// `activity/history`, `journal/walks`).
///
/// Properties: decoding never traps and only throws `DashboardInputError`; whatever decodes can be shown: applied to
/// the view model, every view it builds (the device's, the journal's, the markers', the services') and every API
/// answer made from a reply can be written as JSON (the API writes `null` for a view it cannot encode); and the
/// reports only the dashboard reads are written and read back unchanged (`Fuzz.requireRoundTrip`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    Fuzz.run(start, count) { payload in
        DashboardProperties.inputs(payload)
        DashboardProperties.replies(payload)
    }
}

enum DashboardProperties {
    static let device = "fuzz-1"
    static let kinds: [DashboardInput.Kind] = [
        .steps, .heading, .position, .calibration, .bearingLock, .location, .permissions, .activity, .journal, .journalPhoto,
        .markersStatus, .markersCollection, .serviceStatus("compass"),
    ]

    static func inputs(_ payload: [UInt8]) {
        var model = DashboardModel(pathLimit: 8, maxDevices: 4)
        for kind in kinds {
            guard let input = try? DashboardInput.decode(kind, device: device, payload: payload) else { continue }
            model.apply(input)
            roundTrip(input)
        }
        if let state = model.device(device) {
            requireEncodable(state.view, "the device view")
            requireEncodable(state.journalView, "the journal view")
        }
        requireEncodable(model.markersView, "the markers view")
        requireEncodable(model.servicesView, "the services view")
    }

    /// The reports no other target reads (the others are `FuzzFastReaders`' and `FuzzDeviceMessages`').
    static func roundTrip(_ input: DashboardInput) {
        let decoder = JSONDecoder()
        switch input {
        case .activity(_, let report):
            Fuzz.requireRoundTrip(report, "activity") { try decoder.decode(ActivityMessage.self, from: $0) }
        case .journal(_, let report):
            Fuzz.requireRoundTrip(report, "journal") { try decoder.decode(JournalMessage.self, from: $0) }
        case .journalPhoto(_, let report):
            Fuzz.requireRoundTrip(report, "journal photo") { try decoder.decode(JournalPhotoPoint.self, from: $0) }
        case .markersStatus(let report):
            Fuzz.requireRoundTrip(report, "markers status") { try decoder.decode(MarkersStatusMessage.self, from: $0) }
        case .serviceStatus(_, let report?):
            Fuzz.requireRoundTrip(report, "service status") { try decoder.decode(ServiceStatusReport.self, from: $0) }
        default:
            break
        }
    }

    /// The replies as `DashboardRoutes` and `NearestClient` read them.
    static func replies(_ payload: [UInt8]) {
        let data = Data(payload)
        if let nearest = try? JSONDecoder().decode(NearestReply.self, from: data) {
            Fuzz.requireRoundTrip(nearest, "nearest reply") { try JSONDecoder().decode(NearestReply.self, from: $0) }
            requireEncodable(NearestView(reply: nearest), "the nearest view")
        }
        if let history = try? JSONDecoder().decode(HistoryReply.self, from: data) {
            Fuzz.requireRoundTrip(history, "history reply") { try JSONDecoder().decode(HistoryReply.self, from: $0) }
        }
        if let walks = try? WalksReply.decode(payload) {
            Fuzz.requireRoundTrip(walks, "walks reply") { try WalksReply.decode(Array($0)) }
            if let list = walks.walks { requireEncodable(WalkListView(device: device, walks: list), "the walk list") }
            if let walk = walks.walk {
                requireEncodable(
                    WalkDetailView(device: device, walk: walk, route: walks.route ?? [], points: walks.points ?? []), "the walk detail")
            }
        }
    }

    static func requireEncodable(_ view: some Encodable, _ what: String) {
        Fuzz.require(Fuzz.json(view) != nil, "\(what) cannot be written as JSON: \(view)")
    }
}
