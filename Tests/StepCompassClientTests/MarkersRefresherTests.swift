import Bus
import BusTesting
import DashboardKit
import Foundation
import InMemoryBus
import ServiceRuntime
import Testing

@testable import StepCompassClient

@Suite("Refreshing the markers")
struct MarkersRefresherTests {
    private func fakeMarkers(_ pair: InMemoryPair, answers: [String]) async throws -> Task<Void, Never> {
        let refresh = try await pair.services.subscribe(to: TopicFilter(pair.topics.markersRefresh))
        let services = pair.services
        let topic = pair.topics.markersStatus
        return Task {
            for await request in refresh where request.text == "{}" {
                for answer in answers {
                    try? await services.publish(BusMessage(topic: topic, text: answer, qos: .atLeastOnce, retain: true))
                }
            }
        }
    }

    @Test("publishes {} to markers/cmd/refresh and reports the new status, with loading as progress")
    func refreshed() async throws {
        let pair = InMemoryPair()
        try await pair.publish(pair.topics.markersStatus, #"{"state":"ready","count":3}"#, retain: true)
        let markers = try await fakeMarkers(pair, answers: [#"{"state":"loading","count":3}"#, #"{"state":"ready","count":44,"rejected":1}"#])
        defer { markers.cancel() }
        let progress = Transcript()
        let outcome = try await MarkersRefresher(bus: pair.client, topics: pair.topics, window: .seconds(5))
            .refresh(progress: { progress.append($0) })
        #expect(progress.all == ["Markers: loading…"])
        #expect(outcome.lines == ["Markers: 44 markers ready, 1 rejected"])
        #expect(!outcome.failed)
    }

    @Test("a failed fetch is reported with its reason")
    func failed() async throws {
        let pair = InMemoryPair()
        let markers = try await fakeMarkers(
            pair,
            answers: [
                #"{"state":"failed","count":0,"error":{"code":"http","message":"the source answered 503"}}"#
            ])
        defer { markers.cancel() }
        let outcome = try await MarkersRefresher(bus: pair.client, topics: pair.topics, window: .seconds(5)).refresh()
        #expect(outcome.failed)
        #expect(outcome.lines == ["Markers: the source failed", "  the source answered 503 (http)"])
    }

    @Test("no marker service: says so, with the last status known")
    func noService() async throws {
        let pair = InMemoryPair()
        try await pair.publish(pair.topics.markersStatus, #"{"state":"ready","count":3}"#, retain: true)
        let outcome = try await MarkersRefresher(bus: pair.client, topics: pair.topics, window: .milliseconds(200)).refresh()
        #expect(outcome == .noAnswer(waited: .milliseconds(200), last: MarkersView(status: .init(state: "ready", count: 3), markers: [])))
        #expect(
            outcome.lines == [
                "refresh requested, but the marker service published no new status within 0.2 s: is stepcompass-markers running? (last status: Markers: 3 markers ready)"
            ])
    }
}
