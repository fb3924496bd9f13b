import Bus
import BusTesting
import Foundation
import Testing

/// The real `stepcompass` binary against a real broker: what a user types and sees.
@Suite("The stepcompass binary on a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct StepCompassBinaryTests {
    private func requireBinary() throws {
        try #require(
            StepCompassExecutable.exists,
            "\(StepCompassExecutable.path) is missing: build it with `swift build --build-tests` (or --product stepcompass)")
    }

    @Test("lock finds the only device and publishes its command")
    func lock() async throws {
        try requireBinary()
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let services = try await harness.makeClient(id: "services-lock", cleanStart: true, will: nil)
            try await services.publish(
                BusMessage(
                    topic: "t1/walker-9/heading", text: #"{"status":"ok","heading":10}"#,
                    qos: .atLeastOnce, retain: true))
            let commands = try await services.subscribe(to: TopicFilter("t1/+/cmd/#"))
            let run = try await StepCompassExecutable.run(
                ["lock", "45", "--threshold", "12", "--wait", "0"],
                port: broker.port, prefix: "t1")
            let command = await commands.next(timeout: .seconds(5))
            await services.close()
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output == "locked walker-9 at 45° (threshold 12°)\n")
            #expect(command?.topic == "t1/walker-9/cmd/bearing-lock")
            #expect(command?.text == #"{"action":"lock","bearing":45,"threshold":12}"#)
            #expect(command?.qos == .atLeastOnce)
        }
    }

    @Test("nearest asks the marker service and prints its three nearest")
    func nearest() async throws {
        try requireBinary()
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let markers = try await harness.makeClient(id: "markers-fake", cleanStart: true, will: nil)
            let requests = try await markers.subscribe(to: TopicFilter("t2/markers/nearest"))
            let responder = Task {
                for await request in requests {
                    let reply =
                        #"{"origin":{"id":"m1","name":"Alpha","latitude":48.1,"longitude":11.5},"nearest":[{"id":"m2","name":"Beta","latitude":48.11,"longitude":11.5,"distanceMiles":0.69},{"id":"m3","name":"Gamma","latitude":48.12,"longitude":11.5,"distanceMiles":1.38},{"id":"m4","name":"Delta","latitude":48.2,"longitude":11.5,"distanceMiles":6.9}]}"#
                    _ = try? await markers.respond(to: request, payload: Data(reply.utf8))
                }
            }
            let run = try await StepCompassExecutable.run(["nearest", "m1"], port: broker.port, prefix: "t2")
            responder.cancel()
            await markers.close()
            #expect(run.status == 0, "\(run.output)")
            #expect(
                run.output == """
                    Nearest to Alpha:
                      1. Beta (m2) — 0.69 mi
                      2. Gamma (m3) — 1.38 mi
                      3. Delta (m4) — 6.90 mi

                    """)
        }
    }

    @Test("no broker: a clear message and a non-zero exit (the test's time limit catches a hang)", .timeLimit(.minutes(2)))
    func noBroker() async throws {
        try requireBinary()
        let port = try MosquittoBrokerProcess.freePort()
        let run = try await StepCompassExecutable.run(["nearest", "m1", "--connect-timeout", "1"], port: port, prefix: "t3")
        #expect(run.status == 69)
        #expect(
            run.output
                == "error: cannot reach the MQTT broker at 127.0.0.1:\(port) (connection refused). Start it (make run) or set --mqtt-host/--mqtt-port (MQTT_HOST/MQTT_PORT).\n"
        )
    }
}
