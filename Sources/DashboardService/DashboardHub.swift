import DashboardKit
import Foundation
import Logging
import Metrics
import ServiceRuntime

/// The dashboard's state and its audience: bus inputs go in, browsers' mailboxes are told what changed.
///
/// An actor, so the model is changed by one input at a time and read consistently by the event
/// writers. It holds no I/O: the bus listener feeds it, and each event stream pulls the views it needs.
actor DashboardHub {
    private var model: DashboardModel
    private var mailboxes: [ObjectIdentifier: EventMailbox] = [:]
    private let encoder: JSONEncoder
    /// `stepcompass_dashboard_event_streams`: the browsers connected now.
    private let streams: Gauge?
    private let metrics: ServiceInstruments?

    init(model: DashboardModel, metrics: ServiceInstruments? = nil) {
        self.model = model
        encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        self.metrics = metrics
        streams = metrics.map { $0.gauge("stepcompass_dashboard_event_streams") }
        streams?.record(0)
    }

    /// Applies one input and tells the browsers concerned.
    func apply(_ input: DashboardInput) {
        let change = model.apply(input)
        switch change {
        case .none: return
        case .markers: broadcast([.markers])
        case .services: broadcast([.services])
        case .device(let id, let isNew, let pathChanged):
            if isNew { metrics?.devicesTracked(model.deviceIDs.count) }
            let followed = model.defaultDeviceID
            for mailbox in mailboxes.values {
                var kinds: Set<EventKind> = isNew ? [.devices] : []
                if (mailbox.requestedDevice ?? followed) == id {
                    // The journal's messages change only the Journal panel, not the device's view.
                    if input.isJournal || isNew { kinds.insert(.journal) }
                    if !input.isJournal || isNew { kinds.insert(.device) }
                    if pathChanged || isNew { kinds.insert(.path) }
                }
                mailbox.post(kinds)
            }
        }
    }

    /// Adds a browser; its first write sends everything.
    func register(_ mailbox: EventMailbox) {
        mailboxes[ObjectIdentifier(mailbox)] = mailbox
        streams?.record(mailboxes.count)
        mailbox.post(Set(EventKind.allCases).subtracting([.keepAlive]))
    }

    /// Removes a browser.
    func unregister(_ mailbox: EventMailbox) {
        mailboxes[ObjectIdentifier(mailbox)] = nil
        streams?.record(mailboxes.count)
        mailbox.close()
    }

    /// Ends every stream (at shutdown).
    func closeAll() {
        for mailbox in mailboxes.values { mailbox.close() }
        mailboxes.removeAll()
        streams?.record(0)
    }

    /// The number of open event streams.
    var streamCount: Int { mailboxes.count }

    /// The events of the given kinds for one browser, in a fixed order (the list before the device, the journal last).
    func events(_ kinds: Set<EventKind>, for mailbox: EventMailbox) -> [ServerSentEvent] {
        let selected = mailbox.requestedDevice ?? model.defaultDeviceID
        var events: [ServerSentEvent] = []
        if kinds.contains(.devices) {
            events.append(event(.devices, DeviceListEvent(devices: model.deviceIDs, selected: selected)))
        }
        if kinds.contains(.device), let id = selected, let state = model.device(id) {
            events.append(event(.device, state.view))
        }
        if kinds.contains(.path), let id = selected, let state = model.device(id) {
            events.append(event(.path, PathEvent(device: id, points: state.path)))
        }
        if kinds.contains(.markers) { events.append(event(.markers, model.markersView)) }
        if kinds.contains(.services) { events.append(event(.services, model.servicesView)) }
        // Last, so the snapshot's first events stay those of the live view.
        if kinds.contains(.journal), let id = selected, let state = model.device(id) {
            events.append(event(.journal, JournalEvent(device: id, journal: state.journalView)))
        }
        return events
    }

    /// The whole state for `GET /api/state`.
    func snapshot(device requested: String?) -> DashboardSnapshot {
        let selected = requested ?? model.defaultDeviceID
        let state = selected.flatMap { model.device($0) }
        return DashboardSnapshot(
            devices: model.deviceIDs, selected: selected, device: state?.view, path: state?.path ?? [],
            journal: state?.journalView, markers: model.markersView, services: model.servicesView)
    }

    /// The devices seen so far.
    var deviceIDs: [String] { model.deviceIDs }

    private func broadcast(_ kinds: Set<EventKind>) {
        for mailbox in mailboxes.values { mailbox.post(kinds) }
    }

    private func event(_ kind: EventKind, _ value: some Encodable) -> ServerSentEvent {
        let data = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        return ServerSentEvent(name: kind.rawValue, data: data)
    }
}
