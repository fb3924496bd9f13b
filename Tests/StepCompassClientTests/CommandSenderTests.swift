import Bus
import BusTesting
import Foundation
import InMemoryBus
import ServiceRuntime
import Testing

@testable import StepCompassClient

@Suite("Sending device commands and waiting for their effect")
struct CommandSenderTests {
    /// A stand-in compass service: answers each bearing-lock command with a live retained bearing-lock.
    private func fakeCompass(_ pair: InMemoryPair, device: String) async throws -> Task<Void, Never> {
        let commands = try await pair.services.subscribe(to: TopicFilter(pair.topics.device(device, .commandBearingLock)))
        let services = pair.services
        let topic = pair.topics.device(device, .bearingLock)
        return Task {
            for await command in commands {
                guard let body = try? JSONSerialization.jsonObject(with: command.payload) as? [String: Any] else { continue }
                let reply: String
                if body["action"] as? String == "lock" {
                    let bearing = body["bearing"] as? Double ?? 0
                    let threshold = body["threshold"] as? Double ?? 10
                    reply = #"{"locked":true,"bearing":\#(bearing),"deviation":-3,"threshold":\#(threshold),"exceeded":false}"#
                } else {
                    reply = #"{"locked":false,"bearing":null,"deviation":null,"threshold":10,"exceeded":false}"#
                }
                try? await services.publish(BusMessage(topic: topic, text: reply, qos: .atLeastOnce, retain: true))
            }
        }
    }

    @Test("lock publishes the contract's payload at QoS 1 and reports the compass service's confirmation")
    func lockConfirmed() async throws {
        let pair = InMemoryPair()
        let observer = try await pair.services.subscribe(to: TopicFilter("stepcompass/+/cmd/#"))
        let compass = try await fakeCompass(pair, device: "walker-1")
        defer { compass.cancel() }
        let sender = CommandSender(bus: pair.client, topics: pair.topics, confirmationWindow: .seconds(5))
        let outcome = try await sender.send(.lock(bearing: 45, threshold: 10), to: "walker-1")
        let sent = try #require(await observer.next(timeout: .seconds(2)))
        #expect(sent.topic == "stepcompass/walker-1/cmd/bearing-lock")
        #expect(sent.qos == .atLeastOnce)
        #expect(!sent.retain)
        #expect(sent.text == #"{"action":"lock","bearing":45,"threshold":10}"#)
        #expect(outcome.lines == ["locked walker-1 at 45° (threshold 10°)", "confirmed: Locked on 45° NE: –3° off (limit 10°)"])
    }

    @Test("the retained state from before the command does not count as a confirmation")
    func replayedStateDoesNotConfirm() async throws {
        let pair = InMemoryPair()
        try await pair.publish(
            "stepcompass/walker-1/bearing-lock",
            #"{"locked":true,"bearing":45,"deviation":1,"threshold":10,"exceeded":false}"#, retain: true)
        let sender = CommandSender(bus: pair.client, topics: pair.topics, confirmationWindow: .milliseconds(300))
        let outcome = try await sender.send(.lock(bearing: 45, threshold: 10), to: "walker-1")
        #expect(
            outcome.status
                == .unconfirmed(
                    waited: .milliseconds(300), service: "compass",
                    lastSeen: "Locked on 45° NE: +1° off (limit 10°)"))
        #expect(
            outcome.lines[1]
                == "sent, but not confirmed within 0.3 s: is stepcompass-compass running? (last reported: Locked on 45° NE: +1° off (limit 10°))")
    }

    @Test("unlock is confirmed by an unlocked bearing-lock")
    func unlock() async throws {
        let pair = InMemoryPair()
        let compass = try await fakeCompass(pair, device: "w")
        defer { compass.cancel() }
        let outcome = try await CommandSender(bus: pair.client, topics: pair.topics).send(.unlock, to: "w")
        #expect(outcome.lines == ["unlocked w", "confirmed: Not locked"])
    }

    @Test("a rejection reported on the service's error topic fails the command with its reason")
    func rejected() async throws {
        let pair = InMemoryPair()
        let commands = try await pair.services.subscribe(to: TopicFilter("stepcompass/w/cmd/bearing-lock"))
        let services = pair.services
        let compass = Task {
            for await command in commands {
                let report =
                    #"{"timestamp":"2026-11-22T10:00:00.000Z","topic":"\#(command.topic)","error":"no heading is known for this device yet: give a 'bearing' to lock","payload":"{}"}"#
                try? await services.publish(BusMessage(topic: "stepcompass/errors/compass", text: report))
            }
        }
        defer { compass.cancel() }
        do {
            _ = try await CommandSender(bus: pair.client, topics: pair.topics).send(.lock(bearing: nil, threshold: nil), to: "w")
            Issue.record("a rejected command succeeded")
        } catch let error as StepCompassClientError {
            #expect(error.code == .errorReply)
            #expect(
                error.message
                    == "the compass service rejected the command on stepcompass/w/cmd/bearing-lock: no heading is known for this device yet: give a 'bearing' to lock"
            )
        }
    }

    @Test(
        "each command goes to its topic with its payload",
        arguments: [
            (DeviceCommand.calibrate(reset: false), "cmd/calibrate", #"{"action":"start"}"#),
            (.calibrate(reset: true), "cmd/calibrate", #"{"action":"reset"}"#),
            (.north(.true), "cmd/settings", #"{"north":"true"}"#),
            (.north(.magnetic), "cmd/settings", #"{"north":"magnetic"}"#),
            (.resetPosition, "cmd/reset-position", "{}"),
            (.unlock, "cmd/bearing-lock", #"{"action":"unlock"}"#),
        ])
    func commandTopics(command: DeviceCommand, suffix: String, payload: String) async throws {
        let pair = InMemoryPair()
        let observer = try await pair.services.subscribe(to: TopicFilter("stepcompass/#"))
        let outcome = try await CommandSender(bus: pair.client, topics: pair.topics, confirmationWindow: .zero)
            .send(command, to: "phone-3")
        #expect(outcome.status == .notAwaited)
        let sent = await observer.collect(10, timeout: .milliseconds(100)).filter { $0.topic.contains("/cmd/") }
        #expect(sent.map(\.topic) == ["stepcompass/phone-3/\(suffix)"])
        #expect(sent.map(\.text) == [payload])
        #expect(sent.map(\.qos) == [.atLeastOnce])
    }

    @Test("north is confirmed only by a heading with that reference, and says why true north is not in use yet")
    func north() async throws {
        let pair = InMemoryPair()
        let commands = try await pair.services.subscribe(to: TopicFilter("stepcompass/w/cmd/settings"))
        let services = pair.services
        let compass = Task {
            for await _ in commands {
                // No location yet: the compass service stays on magnetic north.
                try? await services.publish(
                    BusMessage(
                        topic: "stepcompass/w/heading",
                        text: #"{"status":"ok","heading":10,"north":"magnetic","cardinal":"N"}"#, retain: true))
            }
        }
        defer { compass.cancel() }
        let outcome = try await CommandSender(bus: pair.client, topics: pair.topics, confirmationWindow: .milliseconds(300))
            .send(.north(.true), to: "w")
        guard case .unconfirmed(_, "compass", let lastSeen) = outcome.status else {
            Issue.record("expected an unconfirmed outcome, got \(outcome.status)")
            return
        }
        #expect(lastSeen == "Magnetic north (true north once a location is known)")
    }

    @Test("a bad device id is refused before anything is published")
    func badDevice() async throws {
        let pair = InMemoryPair()
        let before = pair.broker.publishedCount
        await #expect(throws: StepCompassClientError.self) {
            _ = try await CommandSender(bus: pair.client, topics: pair.topics).send(.unlock, to: "a/b")
        }
        await #expect(throws: StepCompassClientError.self) {
            _ = try await CommandSender(bus: pair.client, topics: pair.topics).send(.lock(bearing: 400, threshold: nil), to: "w")
        }
        #expect(pair.broker.publishedCount == before)
    }
}
