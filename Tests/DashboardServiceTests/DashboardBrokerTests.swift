import Bus
import BusTesting
import DashboardService
import Foundation
import ServiceRuntime
import Testing

/// The dashboard through a real mosquitto: retained state, the live event stream, commands and the
/// nearest-markers request/response, as in the running stack.
@Suite("Dashboard through a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct DashboardBrokerTests {
    @Test("Retained state, live events, a command and a nearest request through mosquitto")
    func throughBroker() async throws {
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let prefix = "db\(UUID().uuidString.prefix(6))"
            let topics = Topics(prefix: prefix)
            let device = try await harness.makeClient(id: "device-\(prefix)", cleanStart: true, will: nil)
            let markers = try await harness.makeClient(id: "markers-\(prefix)", cleanStart: true, will: nil)
            let service = try await harness.makeClient(id: "dashboard-\(prefix)", cleanStart: true, will: nil)

            try await device.send("\(prefix)/phone-1/heading", #"{"status": "ok", "heading": 358, "north": "true"}"#, retain: true)
            let commands = try await device.subscribe(to: TopicFilter(stringLiteral: "\(prefix)/phone-1/cmd/#"))
            let requests = try await markers.subscribe(to: TopicFilter(stringLiteral: "\(prefix)/markers/nearest"))
            let responder = Task {
                for await request in requests {
                    let reply =
                        #"{"origin": {"id": "m1", "name": "Alpha", "latitude": 1, "longitude": 2}, "nearest": [{"id": "m2", "name": "Beta", "latitude": 1, "longitude": 2.01, "distanceMiles": 0.69}]}"#
                    try await markers.respond(to: request, payload: Data(reply.utf8))
                }
            }
            defer { responder.cancel() }

            try await DashboardHarness.with(bus: service, topics: topics) { dashboard in
                // The retained heading is there at once; a live one arrives through the stream, the short way round.
                let events = try await dashboard.events(
                    while: {
                        try await device.send("\(prefix)/phone-1/heading", #"{"status": "ok", "heading": 3, "north": "true"}"#, qos: .atMostOnce)
                    },
                    until: { events in
                        events.contains { $0.name == "device" && $0.object["headingText"] as? String == "Heading: 3° N" }
                    })
                #expect(events.first { $0.name == "device" }?.object["headingText"] as? String == "Heading: 358° N")
                #expect(events.last { $0.name == "device" }?.object["roseRotation"] as? Double == 363)

                let lock = try await dashboard.post("/api/devices/phone-1/bearing-lock", #"{"action": "lock", "bearing": 90}"#)
                #expect(lock.status == 202)
                let command = await commands.next(timeout: .seconds(5))
                #expect(command?.topic == "\(prefix)/phone-1/cmd/bearing-lock")
                #expect(command?.text == #"{"action":"lock","bearing":90}"#)

                let nearest = try await dashboard.getJSON("/api/markers/m1/nearest")
                #expect(nearest.status == 200)
                #expect((nearest.body["items"] as? [[String: Any]])?.first?["distanceText"] as? String == "0.69 mi")
            }
        }
    }
}
