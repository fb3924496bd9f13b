import Bus
import BusTesting
import Foundation
import InMemoryBus
import ServiceRuntime
import Testing

@testable import StepCompassClient

@Suite("Activity and history: the retained activity message, history requests and replies")
struct ActivityClientTests {
    static let authorized =
        #"{"timestamp":"2026-11-23T15:30:00.000Z","today":6000,"days":[0,3000,12000,6000,0,1500,6000],"weekTotal":28500,"dailyMean":4071.4,"band":"lowActive","cadence":104.6,"authorization":"authorized","timeZone":"Europe/Berlin","suggestion":{"playlist":{"id":"steady","name":"Steady Stride","description":"Mid-tempo","tempo":[100,120],"link":"https://example.com/steady"},"reason":"your cadence is 105 steps a minute"},"guidance":null}"#
    static let denied =
        #"{"timestamp":"2026-11-23T15:30:00.000Z","today":10,"days":[0,0,0,0,0,0,10],"weekTotal":10,"dailyMean":1.4,"band":"sedentary","cadence":0,"authorization":"denied","timeZone":"UTC","suggestion":null,"guidance":"Allow Motion & Fitness in Settings"}"#

    @Test("the only device's activity: today, the days with bars, band, cadence, suggestion")
    func onlyDevice() async throws {
        let pair = InMemoryPair()
        try await pair.publish("stepcompass/phone-1/activity", Self.authorized, retain: true)
        let (device, report, payload) = try await ActivityReader(bus: pair.client, topics: pair.topics).read(nil)
        #expect(device == "phone-1")
        #expect(String(decoding: payload, as: UTF8.self) == Self.authorized)
        #expect(
            report.lines(device: device, days: 3) == [
                "Activity of phone-1 (days in Europe/Berlin):",
                "  Today: 6,000 steps",
                "",
                "  Sat 21 Nov      0",
                "  Sun 22 Nov  1,500  ########",
                "  Mon 23 Nov  6,000  ##############################",
                "",
                "  Week: 28,500 steps, 4,071 a day on average",
                "  Band: lowActive",
                "  Cadence: 105 steps/min",
                "  Suggestion: Steady Stride (100–120 BPM)",
                "    your cadence is 105 steps a minute",
                "    https://example.com/steady",
            ])
        #expect(report.lines(device: device).count == 17)
    }

    @Test("a withheld suggestion shows the guidance; --device picks one of several")
    func guidanceAndDevice() async throws {
        let pair = InMemoryPair()
        try await pair.publish("stepcompass/phone-1/activity", Self.authorized, retain: true)
        try await pair.publish("stepcompass/phone-2/activity", Self.denied, retain: true)
        await #expect(throws: StepCompassClientError(.severalDevices, "2 devices have activity: phone-1, phone-2. Choose one with --device ID")) {
            _ = try await ActivityReader(bus: pair.client, topics: pair.topics).read(nil)
        }
        let (_, report, _) = try await ActivityReader(bus: pair.client, topics: pair.topics).read("phone-2")
        #expect(
            report.lines(device: "phone-2", days: 1).suffix(1) == [
                "  No suggestion (motion access: denied): Allow Motion & Fitness in Settings"
            ])
    }

    @Test("no activity message: a clear error, whether a device is named or not")
    func missing() async throws {
        let pair = InMemoryPair()
        await #expect(throws: StepCompassClientError.self) {
            _ = try await ActivityReader(bus: pair.client, topics: pair.topics, window: .milliseconds(300)).read(nil)
        }
        do {
            _ = try await ActivityReader(bus: pair.client, topics: pair.topics, window: .milliseconds(300)).read("phone-9")
            Issue.record("expected an error")
        } catch let error as StepCompassClientError {
            #expect(error.code == .noReply)
            #expect(error.message.contains("stepcompass/phone-9/activity"))
        }
        await #expect(throws: StepCompassClientError.self) {
            _ = try await ActivityReader(bus: pair.client, topics: pair.topics).read("bad/id")
        }
    }

    /// A stand-in activity service answering every history request with `reply(request)` over MQTT 5.
    private func fakeActivity(_ pair: InMemoryPair, seen: Transcript, reply: @escaping @Sendable ([String: Any]) -> String) async throws -> Task<
        Void, Never
    > {
        let requests = try await pair.services.subscribe(to: TopicFilter("stepcompass/activity/history"))
        let services = pair.services
        return Task {
            for await request in requests {
                seen.append(request.text)
                let body = (try? JSONSerialization.jsonObject(with: request.payload) as? [String: Any]) ?? [:]
                _ = try? await services.respond(to: request, payload: Data(reply(body).utf8))
            }
        }
    }

    static let hours =
        #"{"device":"phone-1","granularity":"hour","timeZone":"Europe/Berlin","buckets":[{"start":"2026-11-23T07:00:00.000Z","steps":1200},{"start":"2026-11-23T08:00:00.000Z","steps":34}]}"#

    @Test("a history request carries device, range and granularity; the reply prints as a table and as CSV")
    func history() async throws {
        let pair = InMemoryPair()
        let seen = Transcript()
        let service = try await fakeActivity(pair, seen: seen) { _ in Self.hours }
        defer { service.cancel() }
        let query = try HistoryQuery(
            device: "phone-1", from: try HistoryQuery.date("2026-11-23T07:00:00Z", option: "--from"),
            to: try HistoryQuery.date("2026-11-23T09:00:00Z", option: "--to"), granularity: .hour)
        let result = try await HistoryRequester(bus: pair.client, topics: pair.topics).send(query)
        #expect(
            try result.table() == [
                "start (Europe/Berlin)  steps",
                "2026-11-23 08:00       1,200",
                "2026-11-23 09:00          34",
                "total                  1,234",
            ])
        #expect(try result.csv() == ["start,steps", "2026-11-23T07:00:00.000Z,1200", "2026-11-23T08:00:00.000Z,34"])
        let request = try #require(seen.all.first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.utf8)) as? [String: Any])
        #expect(body["device"] as? String == "phone-1")
        #expect(body["from"] as? String == "2026-11-23T07:00:00.000Z")
        #expect(body["to"] as? String == "2026-11-23T09:00:00.000Z")
        #expect(body["granularity"] as? String == "hour")
        #expect((body["replyTo"] as? String)?.hasPrefix("stepcompass/replies/stepcompass-cli-test/") == true)
        #expect(body["correlationId"] is String)
    }

    @Test("an MQTT 3.1.1-style reply to replyTo with the correlationId is accepted; an error reply is an error")
    func payloadCorrelationAndError() async throws {
        let pair = InMemoryPair()
        let requests = try await pair.services.subscribe(to: TopicFilter("stepcompass/activity/history"))
        let services = pair.services
        let service = Task {
            for await request in requests {
                guard let body = try? JSONSerialization.jsonObject(with: request.payload) as? [String: Any],
                    let replyTo = body["replyTo"] as? String, let id = body["correlationId"] as? String
                else { continue }
                try? await services.publish(
                    BusMessage(topic: replyTo, text: #"{"error":{"code":"x","message":"not me"},"correlationId":"other"}"#, qos: .atLeastOnce))
                let ours = #"{"error":{"code":"badRequest","message":"'from' must be before 'to'"},"correlationId":"\#(id)"}"#
                try? await services.publish(BusMessage(topic: replyTo, text: ours, qos: .atLeastOnce))
            }
        }
        defer { service.cancel() }
        let query = try HistoryQuery(
            device: "phone-1", from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 86_400), granularity: .day)
        let result = try await HistoryRequester(bus: pair.client, topics: pair.topics).send(query)
        #expect(throws: StepCompassClientError(.errorReply, "the activity service answered: 'from' must be before 'to' (badRequest)")) {
            _ = try result.table()
        }
    }

    @Test("an empty range prints a note; no service: a clear message after the timeout")
    func emptyAndTimeout() async throws {
        let empty = try HistoryResult(payload: Data(#"{"device":"d","granularity":"day","timeZone":"UTC","buckets":[]}"#.utf8))
        #expect(try empty.table() == ["start (UTC)  steps", "(no steps in this range)"])
        #expect(try empty.csv() == ["start,steps"])
        let pair = InMemoryPair()
        let query = try HistoryQuery(
            device: "phone-1", from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 60), granularity: .minute)
        await #expect(throws: StepCompassClientError(.noReply, "no reply from the activity service within 0.2 s: is stepcompass-activity running?")) {
            _ = try await HistoryRequester(bus: pair.client, topics: pair.topics, timeout: .milliseconds(200)).send(query)
        }
        #expect(throws: StepCompassClientError.self) { try HistoryResult(payload: Data("{}".utf8)) }
    }

    @Test("bad queries are refused before sending")
    func invalidQueries() {
        let start = Date(timeIntervalSince1970: 1_000_000)
        #expect(throws: StepCompassClientError.self) { try HistoryQuery(device: "d", from: start, to: start, granularity: .hour) }
        #expect(throws: StepCompassClientError.self) { try HistoryQuery(device: "a/b", from: start, to: start + 60, granularity: .hour) }
        #expect(throws: StepCompassClientError.self) { try HistoryQuery(device: "d", from: start, to: start + 50_001 * 60, granularity: .minute) }
        #expect(throws: Never.self) { try HistoryQuery(device: "d", from: start, to: start + 50_000 * 60, granularity: .minute) }
        #expect(throws: StepCompassClientError.self) { try HistoryQuery.date("yesterday", option: "--from") }
    }
}
