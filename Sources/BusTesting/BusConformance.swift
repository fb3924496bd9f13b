import Bus
import Foundation

/// One body of tests that every ``MessageBus`` implementation must pass, in the style of
/// swift-configuration's `ProviderCompatTest`: the in-memory twin and the real mosquitto client run the
/// same cases, so the twin cannot drift from the real thing unnoticed.
///
/// ```swift
/// @Test(arguments: BusConformance.allCases)
/// func inMemory(_ check: BusConformance) async throws {
///     try await check.run(on: InMemoryHarness())
/// }
/// ```
public enum BusConformance: String, CaseIterable, Sendable, CustomStringConvertible {
    case singleLevelWildcard
    case multiLevelWildcard
    case dollarTopicsHiddenFromWildcards
    case retainedMessages
    case qosDowngrade
    case lastWillOnAbnormalDisconnect
    case noLastWillOnCleanDisconnect
    case persistentSessionQueuesQoS1
    case cleanStartQueuesNothing
    case requestResponseProperties
    case unsubscribeStopsDelivery
    case orderAcrossTopics
    case noLocalSkipsOwnMessages

    public var description: String { rawValue }

    /// Runs this case against a harness; throws ``ConformanceFailure`` when an expectation fails or the
    /// case does not finish within `timeout` (a hang is a failure, not a stuck test run).
    public func run(on harness: any BusHarness, timeout: Duration = .seconds(30)) async throws {
        let finished = try await withTimeout(timeout) { try await self.body(on: harness) } != nil
        try require(finished, "\(self) did not finish within \(timeout) on \(harness.name)")
    }

    private func body(on harness: any BusHarness) async throws {
        let root = "conformance/\(UUID().uuidString.prefix(8))"
        let id = "\(rawValue.prefix(20))-\(UUID().uuidString.prefix(8))"
        switch self {
        case .singleLevelWildcard: try await singleLevelWildcard(harness, root, id)
        case .multiLevelWildcard: try await multiLevelWildcard(harness, root, id)
        case .dollarTopicsHiddenFromWildcards: try await dollarTopics(harness, root, id)
        case .retainedMessages: try await retainedMessages(harness, root, id)
        case .qosDowngrade: try await qosDowngrade(harness, root, id)
        case .lastWillOnAbnormalDisconnect: try await lastWill(harness, root, id, crash: true)
        case .noLastWillOnCleanDisconnect: try await lastWill(harness, root, id, crash: false)
        case .persistentSessionQueuesQoS1: try await persistentSession(harness, root, id, cleanStart: false)
        case .cleanStartQueuesNothing: try await persistentSession(harness, root, id, cleanStart: true)
        case .requestResponseProperties: try await requestResponse(harness, root, id)
        case .unsubscribeStopsDelivery: try await unsubscribe(harness, root, id)
        case .orderAcrossTopics: try await order(harness, root, id)
        case .noLocalSkipsOwnMessages: try await noLocal(harness, root, id)
        }
    }

    private static let quiet = Duration.milliseconds(300)

    private func topics(_ messages: [BusMessage]) -> [String] { messages.map(\.topic) }

    private func singleLevelWildcard(_ harness: any BusHarness, _ root: String, _ id: String) async throws {
        let client = try await harness.makeClient(id: id, cleanStart: true, will: nil)
        let steps = try await client.subscribe(to: try TopicFilter("\(root)/+/steps"))
        for topic in ["\(root)/d1/steps", "\(root)/d1/imu", "\(root)/d1/x/steps", "\(root)/d2/steps", "\(root)/steps"] {
            try await client.publish(BusMessage(topic: topic, text: "1", qos: .atLeastOnce))
        }
        let received = await steps.collect(3, timeout: Self.quiet * 3)
        try require(
            topics(received) == ["\(root)/d1/steps", "\(root)/d2/steps"],
            "'+' must match exactly one level; got \(topics(received))")
        await client.close()
    }

    private func multiLevelWildcard(_ harness: any BusHarness, _ root: String, _ id: String) async throws {
        let client = try await harness.makeClient(id: id, cleanStart: true, will: nil)
        let all = try await client.subscribe(to: try TopicFilter("\(root)/a/#"))
        for topic in ["\(root)/a", "\(root)/a/b", "\(root)/a/b/c", "\(root)/ab", "\(root)/b/a"] {
            try await client.publish(BusMessage(topic: topic, text: "1", qos: .atLeastOnce))
        }
        let received = await all.collect(4, timeout: Self.quiet * 3)
        try require(
            topics(received) == ["\(root)/a", "\(root)/a/b", "\(root)/a/b/c"],
            "'#' must match the parent level and all below it; got \(topics(received))")
        await client.close()
    }

    private func dollarTopics(_ harness: any BusHarness, _ root: String, _ id: String) async throws {
        let key = root.split(separator: "/").last.map(String.init) ?? "x"
        let client = try await harness.makeClient(id: id, cleanStart: true, will: nil)
        let wildcard = try await client.subscribe(to: try TopicFilter("+/\(key)"))
        let explicit = try await client.subscribe(to: try TopicFilter("$conformance/\(key)"))
        try await client.publish(BusMessage(topic: "$conformance/\(key)", text: "dollar", qos: .atLeastOnce))
        try await client.publish(BusMessage(topic: "plain/\(key)", text: "plain", qos: .atLeastOnce))
        let viaWildcard = await wildcard.collect(2, timeout: Self.quiet * 3)
        let viaExplicit = await explicit.collect(1)
        try require(
            topics(viaWildcard) == ["plain/\(key)"],
            "a leading wildcard must not match a '$' topic; got \(topics(viaWildcard))")
        try require(topics(viaExplicit) == ["$conformance/\(key)"], "an explicit '$' filter must match; got \(topics(viaExplicit))")
        await client.close()
    }

    private func retainedMessages(_ harness: any BusHarness, _ root: String, _ id: String) async throws {
        let publisher = try await harness.makeClient(id: id + "-p", cleanStart: true, will: nil)
        try await publisher.publish(BusMessage(topic: "\(root)/r1", text: "first", qos: .atLeastOnce, retain: true))
        try await publisher.publish(BusMessage(topic: "\(root)/r1", text: "second", qos: .atLeastOnce, retain: true))
        try await publisher.publish(BusMessage(topic: "\(root)/r2", text: "gone", qos: .atLeastOnce, retain: true))
        try await publisher.publish(BusMessage(topic: "\(root)/r2", payload: Data(), qos: .atLeastOnce, retain: true))
        try await publisher.publish(BusMessage(topic: "\(root)/r3", text: "not retained", qos: .atLeastOnce))
        try await publisher.flush()
        let subscriber = try await harness.makeClient(id: id + "-s", cleanStart: true, will: nil)
        let subscription = try await subscriber.subscribe(to: try TopicFilter("\(root)/#"))
        let replayed = await subscription.collect(2, timeout: Self.quiet * 3)
        try require(replayed.map(\.text) == ["second"], "a new subscription gets the latest retained message only; got \(replayed.map(\.text))")
        try require(replayed.first?.retain == true, "a replayed retained message has retain set")
        try await publisher.publish(BusMessage(topic: "\(root)/r1", text: "live", qos: .atLeastOnce, retain: true))
        let live = await subscription.next()
        try require(
            live?.text == "live" && live?.retain == false,
            "a live message to a subscriber is not flagged retained; got \(String(describing: live))")
        await publisher.close()
        await subscriber.close()
    }

    private func qosDowngrade(_ harness: any BusHarness, _ root: String, _ id: String) async throws {
        let client = try await harness.makeClient(id: id, cleanStart: true, will: nil)
        let low = try await client.subscribe(to: try TopicFilter("\(root)/low"), qos: .atMostOnce)
        let high = try await client.subscribe(to: try TopicFilter("\(root)/high"), qos: .exactlyOnce)
        try await client.publish(BusMessage(topic: "\(root)/low", text: "1", qos: .exactlyOnce))
        try await client.publish(BusMessage(topic: "\(root)/high", text: "1", qos: .atLeastOnce))
        let lowMessage = await low.next()
        let highMessage = await high.next()
        try require(lowMessage?.qos == .atMostOnce, "QoS 2 to a QoS 0 subscription arrives at QoS 0; got \(String(describing: lowMessage?.qos))")
        try require(highMessage?.qos == .atLeastOnce, "QoS 1 to a QoS 2 subscription stays QoS 1; got \(String(describing: highMessage?.qos))")
        await client.close()
    }

    private func lastWill(_ harness: any BusHarness, _ root: String, _ id: String, crash: Bool) async throws {
        let watcher = try await harness.makeClient(id: id + "-w", cleanStart: true, will: nil)
        let status = try await watcher.subscribe(to: try TopicFilter("\(root)/status"))
        let will = BusMessage(topic: "\(root)/status", text: "offline", qos: .atLeastOnce, retain: true)
        let client = try await harness.makeClient(id: id + "-c", cleanStart: true, will: will)
        try await client.publish(BusMessage(topic: "\(root)/status", text: "online", qos: .atLeastOnce, retain: true))
        try require(await status.next()?.text == "online", "the online status arrives")
        if crash { await client.crash() } else { await client.close() }
        let after = await status.next(timeout: crash ? .seconds(5) : Self.quiet * 2)
        if crash {
            try require(after?.text == "offline", "an abnormal disconnect publishes the last will; got \(String(describing: after?.text))")
        } else {
            try require(after == nil, "a clean disconnect publishes no last will; got \(String(describing: after?.text))")
        }
        await watcher.close()
    }

    private func persistentSession(_ harness: any BusHarness, _ root: String, _ id: String, cleanStart: Bool) async throws {
        let first = try await harness.makeClient(id: id, cleanStart: cleanStart, will: nil)
        let subscription = try await first.subscribe(to: try TopicFilter("\(root)/queued"), qos: .atLeastOnce)
        _ = subscription
        await first.close()
        let publisher = try await harness.makeClient(id: id + "-p", cleanStart: true, will: nil)
        try await publisher.publish(BusMessage(topic: "\(root)/queued", text: "q1", qos: .atLeastOnce))
        try await publisher.publish(BusMessage(topic: "\(root)/queued", text: "zero", qos: .atMostOnce))
        try await publisher.publish(BusMessage(topic: "\(root)/queued", text: "q2", qos: .atLeastOnce))
        try await publisher.flush()
        let second = try await harness.makeClient(id: id, cleanStart: cleanStart, will: nil)
        let resumed = try await second.subscribe(to: try TopicFilter("\(root)/queued"), qos: .atLeastOnce)
        let received = await resumed.collect(3, timeout: Self.quiet * 3)
        if cleanStart {
            try require(received.isEmpty, "a clean start gets nothing queued; got \(received.map(\.text))")
        } else {
            try require(
                received.map(\.text) == ["q1", "q2"],
                "a persistent session gets its QoS 1 messages, not QoS 0, in order; got \(received.map(\.text))")
        }
        await second.close()
        await publisher.close()
    }

    private func requestResponse(_ harness: any BusHarness, _ root: String, _ id: String) async throws {
        guard harness.carriesProperties else { return }
        let responder = try await harness.makeClient(id: id + "-r", cleanStart: true, will: nil)
        let requests = try await responder.subscribe(to: try TopicFilter("\(root)/ask"))
        let answering = Task {
            for await request in requests {
                try await responder.respond(to: request, payload: Data("answer:\(request.text)".utf8))
                var echo = BusMessage(topic: "\(root)/props", text: "", qos: .atLeastOnce)
                echo.properties.userProperties = request.properties.userProperties
                echo.properties.messageExpiryInterval = request.properties.messageExpiryInterval
                echo.properties.contentType = request.properties.contentType
                try await responder.publish(echo)
                return
            }
        }
        let requester = try await harness.makeClient(id: id + "-q", cleanStart: true, will: nil)
        let props = try await requester.subscribe(to: try TopicFilter("\(root)/props"))
        var request = BusMessage(topic: "\(root)/ask", text: "42", qos: .atLeastOnce)
        request.properties.userProperties = [UserProperty("a", "1"), UserProperty("a", "2")]
        request.properties.messageExpiryInterval = 60
        request.properties.contentType = "application/json"
        let reply = try await requester.request(request, replyTopic: "\(root)/replies/\(id)", timeout: .seconds(5))
        try require(reply.text == "answer:42", "the reply arrives on the response topic; got \(reply.text)")
        let echoed = await props.next()
        try require(
            echoed?.properties.userProperties == [UserProperty("a", "1"), UserProperty("a", "2")],
            "user properties arrive in order with repeats; got \(String(describing: echoed?.properties.userProperties))")
        try require(echoed?.properties.contentType == "application/json", "content type arrives")
        try require((echoed?.properties.messageExpiryInterval ?? 0) > 0, "message expiry arrives")
        try await answering.value
        await requester.close()
        await responder.close()
    }

    private func unsubscribe(_ harness: any BusHarness, _ root: String, _ id: String) async throws {
        let client = try await harness.makeClient(id: id, cleanStart: true, will: nil)
        let first = try await client.subscribe(to: try TopicFilter("\(root)/u"))
        let second = try await client.subscribe(to: try TopicFilter("\(root)/u"))
        try await client.unsubscribe(first)
        try await client.publish(BusMessage(topic: "\(root)/u", text: "after", qos: .atLeastOnce))
        try require(await second.next()?.text == "after", "the other subscription to the same filter still receives")
        try require(await first.collect(1, timeout: Self.quiet).isEmpty, "an unsubscribed subscription receives nothing")
        try await client.unsubscribe(second)
        let watcher = try await client.subscribe(to: try TopicFilter("\(root)/other"))
        try await client.publish(BusMessage(topic: "\(root)/u", text: "nobody", qos: .atLeastOnce))
        try await client.publish(BusMessage(topic: "\(root)/other", text: "marker", qos: .atLeastOnce))
        try require(await watcher.next()?.text == "marker", "the marker message arrives")
        await client.close()
    }

    private func order(_ harness: any BusHarness, _ root: String, _ id: String) async throws {
        let client = try await harness.makeClient(id: id, cleanStart: true, will: nil)
        let both = try await client.subscribe(to: [
            SubscriptionRequest(try TopicFilter("\(root)/d/steps")), SubscriptionRequest(try TopicFilter("\(root)/d/heading")),
        ])
        var sent: [String] = []
        for index in 0..<200 {
            let topic = index % 3 == 0 ? "\(root)/d/heading" : "\(root)/d/steps"
            sent.append("\(topic)#\(index)")
            try await client.publish(BusMessage(topic: topic, text: "\(index)", qos: .atLeastOnce))
        }
        let received = await both.collect(200)
        try require(
            received.map { "\($0.topic)#\($0.text)" } == sent,
            "one subscription's messages arrive in publish order across its topics (\(received.count) of 200)")
        await client.close()
    }

    /// No Local: a client's own live messages do not come back through a subscription that asked so, its own retained
    /// message does (the position service restores from its own retained positions), another client's messages do.
    /// Over MQTT 3.1.1 the option does not exist and everything comes back. (A second subscription of the client to the
    /// same filter is left out: MQTT 5 replaces the filter's options, mosquitto 2.0 keeps the first's No Local.)
    private func noLocal(_ harness: any BusHarness, _ root: String, _ id: String) async throws {
        let client = try await harness.makeClient(id: id, cleanStart: true, will: nil)
        try await client.publish(BusMessage(topic: "\(root)/r", text: "mine", qos: .atLeastOnce, retain: true))
        let subscription = try await client.subscribe(to: [
            SubscriptionRequest(try TopicFilter("\(root)/n"), noLocal: true),
            SubscriptionRequest(try TopicFilter("\(root)/r"), noLocal: true),
            SubscriptionRequest(try TopicFilter("\(root)/end")),
        ])
        try await client.publish(BusMessage(topic: "\(root)/n", text: "own", qos: .atLeastOnce))
        try await client.publish(BusMessage(topic: "\(root)/end", text: "end", qos: .atLeastOnce))
        // One client's packets are handled in order: "own" would come before "end".
        var received = await subscription.collect(harness.honoursNoLocal ? 2 : 3, timeout: Self.quiet * 10)
        let other = try await harness.makeClient(id: id + "-o", cleanStart: true, will: nil)
        try await other.publish(BusMessage(topic: "\(root)/n", text: "other", qos: .atLeastOnce))
        received += await subscription.collect(1, timeout: Self.quiet * 10)
        let seen = received.map { "\($0.text)\($0.retain ? " (retained)" : "")" }
        let expected = harness.honoursNoLocal ? ["mine (retained)", "end", "other"] : ["mine (retained)", "own", "end", "other"]
        try require(seen == expected, "No Local on \(harness.name): expected \(expected), got \(seen)")
        try await client.publish(BusMessage(topic: "\(root)/r", text: "", qos: .atLeastOnce, retain: true))
        await other.close()
        await client.close()
    }
}
