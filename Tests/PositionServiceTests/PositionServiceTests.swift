import Bus
import BusTesting
import Foundation
import InMemoryBus
import PositionService
import ServiceRuntime
import Testing

@Suite("Position service on the in-memory bus")
struct PositionServiceTests {
    @Test("headings and steps give one position per batch, along the current heading")
    func headingsAndSteps() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        let device = fixture.probe
        try await device.publish("stepcompass/p1/heading", #"{"heading": 90, "status": "ok"}"#, qos: .atMostOnce, retain: true)
        try await device.publish("stepcompass/p1/steps", #"{"steps": 25, "timestamp": "2026-11-22T10:00:00.000Z"}"#)
        let first = try await fixture.positions(2)
        #expect(first.map(\.updates) == [1, 2])
        #expect(first.map(\.steps) == [25, 25])
        #expect(abs(first[1].y - 15) < 1e-9 && abs(first[1].x) < 1e-9)
        #expect(first[1].distance == 25 * 0.75)
        #expect(first[1].timestamp == "2026-11-22T10:00:00.000Z")
        try await device.publish("stepcompass/p1/steps", #"{"steps": 27}"#)
        let partial = try await fixture.positions(1)
        #expect(partial.first?.steps == 27 && partial.first?.updates == 2)
        try await device.publish("stepcompass/p1/heading", #"{"heading": 0}"#, qos: .atMostOnce, retain: true)
        try await device.publish("stepcompass/p1/steps", #"{"steps": 31}"#)
        let third = try await fixture.positions(1)
        #expect(third.first?.updates == 3)
        #expect(abs((third.first?.x ?? 0) - 7.5) < 1e-9)
        #expect(third.first?.heading == 0)
        let retained = try fixture.broker.retainedMessage(on: "stepcompass/p1/position").map(PositionMessage.decode)
        #expect(retained == third.first)
        await service.stop()
    }

    @Test("a device's messages are handled in arrival order across topics")
    func orderAcrossTopics() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        let device = fixture.probe
        for (heading, steps) in [(0, 10), (90, 20), (180, 30), (270, 40)] {
            try await device.publish("stepcompass/o1/heading", #"{"heading": \#(heading)}"#, qos: .atMostOnce)
            try await device.publish("stepcompass/o1/steps", #"{"steps": \#(steps)}"#)
        }
        let positions = try await fixture.positions(4)
        try #require(positions.count == 4, "four batches, four positions")
        #expect(positions.map(\.heading) == [0, 90, 180, 270])
        #expect(abs(positions[1].x - 7.5) < 1e-9 && abs(positions[1].y - 7.5) < 1e-9)
        #expect(abs(positions[3].x) < 1e-9 && abs(positions[3].y) < 1e-9)
        await service.stop()
    }

    @Test("a repeated count changes nothing and publishes nothing")
    func duplicates() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        try await fixture.probe.publish("stepcompass/d1/heading", #"{"heading": 45}"#, qos: .atMostOnce)
        for _ in 0..<3 {
            try await fixture.probe.publish("stepcompass/d1/steps", #"{"steps": 10}"#)
        }
        try await fixture.probe.publish("stepcompass/d1/steps", #"{"steps": 12}"#)
        try await fixture.probe.publish("stepcompass/d1/steps", #"{"steps": 14}"#)
        // Messages are handled in order, so the 14 marks the end: a position for a repeated 10 would come before it.
        let positions = try await fixture.positions(3)
        #expect(positions.map(\.steps) == [10, 12, 14])
        await service.stop()
    }

    @Test("a lower count starts a new session whose count adds from zero")
    func newSession() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        try await fixture.probe.publish("stepcompass/s1/heading", #"{"heading": 0}"#, qos: .atMostOnce)
        try await fixture.probe.publish("stepcompass/s1/steps", #"{"steps": 15}"#)
        try await fixture.probe.publish("stepcompass/s1/steps", #"{"steps": 5}"#)
        let positions = try await fixture.positions(2)
        #expect(positions.last?.steps == 20)
        #expect(positions.last?.sessionSteps == 5)
        #expect(positions.last?.updates == 2)
        await service.stop()
    }

    @Test("a lower count stamped no later than the last one is an old message delivered again, not a new session")
    func staleRedelivery() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        try await fixture.probe.publish("stepcompass/r1/heading", #"{"heading": 0}"#, qos: .atMostOnce)
        try await fixture.probe.publish("stepcompass/r1/steps", #"{"steps": 15, "timestamp": "2026-11-22T10:00:10.000Z"}"#)
        try await fixture.probe.publish("stepcompass/r1/steps", #"{"steps": 18, "timestamp": "2026-11-22T10:00:12.000Z"}"#)
        // A broker restored from an older save sends these again: older (and equal) stamps, lower counts.
        try await fixture.probe.publish("stepcompass/r1/steps", #"{"steps": 15, "timestamp": "2026-11-22T10:00:10.000Z"}"#)
        try await fixture.probe.publish("stepcompass/r1/steps", #"{"steps": 17, "timestamp": "2026-11-22T10:00:12.000Z"}"#)
        // A later stamp with a lower count is a new session.
        try await fixture.probe.publish("stepcompass/r1/steps", #"{"steps": 2, "timestamp": "2026-11-22T10:00:13.000Z"}"#)
        let positions = try await fixture.positions(3)
        #expect(positions.map(\.steps) == [15, 18, 20])
        #expect(positions.last?.sessionSteps == 2)
        await service.stop()
    }

    @Test("after a restart, a redelivered lower count older than the retained position changes nothing")
    func staleAfterRestore() async throws {
        let fixture = try await InMemoryFixture()
        let state =
            #"{"timestamp": "2026-11-22T10:05:00.000Z", "x": 30, "y": 0, "steps": 40, "sessionSteps": 40, "distance": 30, "heading": 0, "updates": 4}"#
        try await fixture.probe.publish("stepcompass/r2/position", state, retain: true)
        _ = try await fixture.positions(1)
        try await fixture.probe.publish("stepcompass/r2/heading", #"{"heading": 0}"#, qos: .atMostOnce, retain: true)
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        try await fixture.probe.publish("stepcompass/r2/steps", #"{"steps": 31, "timestamp": "2026-11-22T10:04:50.000Z"}"#)
        try await fixture.probe.publish("stepcompass/r2/steps", #"{"steps": 41, "timestamp": "2026-11-22T10:05:01.000Z"}"#)
        let positions = try await fixture.positions(1)
        #expect(positions.map(\.steps) == [41])
        #expect(positions.last?.updates == 4)
        await service.stop()
    }

    @Test("a batch due before any heading waits for the first heading")
    func batchWaitsForHeading() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        try await fixture.probe.publish("stepcompass/w1/steps", #"{"steps": 25}"#)
        let waiting = try await fixture.positions(1)
        #expect(waiting.first?.updates == 0 && waiting.first?.heading == nil && waiting.first?.steps == 25)
        try await fixture.probe.publish("stepcompass/w1/heading", #"{"heading": 180}"#, qos: .atMostOnce)
        let applied = try await fixture.positions(2)
        #expect(applied.map(\.updates) == [1, 2])
        #expect(abs((applied.last?.x ?? 0) + 15) < 1e-9)
        await service.stop()
    }

    @Test("cmd/reset-position goes back to zero and keeps the session baseline")
    func reset() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        try await fixture.probe.publish("stepcompass/r1/heading", #"{"heading": 90}"#, qos: .atMostOnce)
        try await fixture.probe.publish("stepcompass/r1/steps", #"{"steps": 25}"#)
        _ = try await fixture.positions(2)
        try await fixture.probe.publish("stepcompass/r1/cmd/reset-position", "{}")
        let reset = try await fixture.positions(1)
        #expect(
            reset.first.map { ($0.x, $0.y, $0.steps, $0.updates, $0.distance, $0.sessionSteps) }
                .map { $0 == (0, 0, 0, 0, 0, 25) } == true)
        try await fixture.probe.publish("stepcompass/r1/steps", #"{"steps": 37}"#)
        let after = try await fixture.positions(1)
        #expect(after.first?.steps == 12 && after.first?.updates == 1)
        await service.stop()
    }

    @Test("bad inputs are reported on the error topic with the reason, and the service goes on")
    func badInputs() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        let oversized = #"{"steps": 1, "pad": ""# + String(repeating: "x", count: 70_000) + #""}"#
        let cases: [(topic: String, payload: String, reason: String)] = [
            ("stepcompass/b1/steps", "not json", "not a JSON object"),
            ("stepcompass/b1/steps", #"{"count": 3}"#, "'steps' is missing"),
            ("stepcompass/b1/steps", #"{"steps": -4}"#, "negative"),
            ("stepcompass/b1/steps", #"{"steps": 2.5}"#, "whole number"),
            ("stepcompass/b1/steps", #"{"steps": 3, "timestamp": "yesterday"}"#, "ISO 8601"),
            ("stepcompass/b1/heading", #"{"heading": "NaN"}"#, "wrong type"),
            ("stepcompass/b1/heading", #"{"heading": 400}"#, "outside"),
            ("stepcompass/b1/heading", #"{"status": "ok"}"#, "'heading' is missing"),
            ("stepcompass/bad.id/steps", #"{"steps": 3}"#, "may only contain"),
            ("stepcompass/simulation/steps", #"{"steps": 3}"#, "reserved"),
            ("stepcompass/b1/cmd/reset-position", "[]", "not a JSON object"),
            ("stepcompass/b1/steps", oversized, "more than the limit"),
        ]
        for input in cases {
            try await fixture.probe.publish(input.topic, input.payload)
        }
        let reports = try await fixture.errors.collect(cases.count, timeout: .seconds(2)).map {
            try JSONDecoder().decode(ErrorReportMessage.self, from: $0.payload)
        }
        #expect(reports.count == cases.count)
        for (report, input) in zip(reports, cases) {
            #expect(report.topic == input.topic)
            #expect(report.error.contains(input.reason), "\(report.error) should mention \(input.reason)")
            #expect(report.payload.utf8.count <= 256)
        }
        // No position from any of them, and the service still works.
        try await fixture.probe.publish("stepcompass/b1/steps", #"{"steps": 3}"#)
        let positions = try await fixture.positions(1)
        #expect(positions.first?.steps == 3)
        // A heading message without a heading because there is no sensor is not an error.
        try await fixture.probe.publish("stepcompass/b1/heading", #"{"status": "noSensor", "heading": null}"#)
        #expect(await fixture.errors.next(timeout: .milliseconds(200)) == nil)
        await service.stop()
    }

    @Test("cleared retained messages (stepcompass forget) are not bad input: no error report, the service goes on")
    func clearedRetainedMessages() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        // What `stepcompass forget` clears: the device's retained topics (the position service reads two of them).
        for topic in ["stepcompass/f1/heading", "stepcompass/f1/position"] {
            try await fixture.probe.publish(BusMessage(topic: topic, payload: Data(), qos: .atLeastOnce, retain: true))
        }
        try await fixture.probe.publish("stepcompass/f1/steps", #"{"steps": 4}"#)
        let positions = try await fixture.positions(1)
        #expect(positions.first?.steps == 4)
        // An empty live `steps` is not a cleared retained message: it is bad input, and the only report.
        try await fixture.probe.publish(BusMessage(topic: "stepcompass/f1/steps", payload: Data(), qos: .atLeastOnce))
        let report = try #require(await fixture.errors.next(timeout: .seconds(10)))
        #expect(try JSONDecoder().decode(ErrorReportMessage.self, from: report.payload).topic == "stepcompass/f1/steps")
        await service.stop()
    }

    @Test("a retained position with a batch still due is restored and the batch applied")
    func restoresPendingBatch() async throws {
        let fixture = try await InMemoryFixture()
        let state =
            #"{"timestamp": "2026-11-22T10:00:00.000Z", "x": 7.5, "y": 0, "steps": 25, "sessionSteps": 25, "distance": 18.75, "heading": 0, "updates": 1}"#
        try await fixture.probe.publish("stepcompass/q1/position", state, retain: true)
        _ = try await fixture.positions(1)
        try await fixture.probe.publish("stepcompass/q1/heading", #"{"heading": 90}"#, qos: .atMostOnce, retain: true)
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        let applied = try await fixture.positions(1)
        #expect(applied.first?.updates == 2)
        #expect(abs((applied.first?.x ?? 0) - 7.5) < 1e-9 && abs((applied.first?.y ?? 0) - 7.5) < 1e-9)
        await service.stop()
    }

    @Test(
        "after a restart, queued QoS 1 steps are counted exactly once on top of the retained position",
        arguments: [false, true])
    func restart(crash: Bool) async throws {
        let fixture = try await InMemoryFixture()
        let firstBus = fixture.serviceBus()
        let first = try await RunningPositionService.start(on: firstBus)
        try await fixture.probe.publish("stepcompass/k1/heading", #"{"heading": 90}"#, qos: .atMostOnce, retain: true)
        try await fixture.probe.publish("stepcompass/k1/steps", #"{"steps": 25}"#)
        #expect(try await fixture.positions(2).last?.steps == 25)
        await first.stop()
        if crash { firstBus.simulateConnectionLoss() } else { firstBus.disconnect() }

        // While it is down: two step messages queued for its persistent session.
        try await fixture.probe.publish("stepcompass/k1/steps", #"{"steps": 32}"#)
        try await fixture.probe.publish("stepcompass/k1/steps", #"{"steps": 47}"#)

        let second = try await RunningPositionService.start(on: fixture.serviceBus())
        let resumed = try await fixture.positions(3, timeout: .seconds(3))
        #expect(resumed.map(\.steps) == [32, 47])
        #expect(resumed.last?.updates == 4)
        #expect(abs((resumed.last?.y ?? 0) - 30) < 1e-9)
        #expect(resumed.last?.distance == 47 * 0.75)
        let retained = try fixture.broker.retainedMessage(on: "stepcompass/k1/position").map(PositionMessage.decode)
        #expect(retained?.steps == 47)
        await second.stop()
    }
}
