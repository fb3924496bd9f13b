import Bus
import BusTesting
import Foundation
import Logging
import Testing

@testable import MosquittoBus

/// The network thread as a task executor (`MosquittoBus.taskExecutor`): where a task that prefers it runs, and that it
/// runs whatever the connection is doing.
@Suite("the network thread as a task executor", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct NetworkExecutorTests {
    /// The result of `work` run in a task that prefers `executor`, or nil when it has not finished within `timeout`
    /// (a task whose jobs nobody runs never finishes, and a task group would wait for it forever).
    static func result<T: Sendable>(
        preferring executor: (any TaskExecutor)?, within timeout: Duration, _ work: @escaping @Sendable () async -> T
    ) async -> T? {
        let (results, continuation) = AsyncStream<T?>.makeStream()
        Task.detached { continuation.yield(await withTaskExecutorPreference(executor) { await work() }) }
        Task.detached {
            try? await Task.sleep(for: timeout)
            continuation.yield(nil)
        }
        for await result in results { return result }
        return nil
    }

    @Test("the network thread carries a name Linux accepts: mqtt and the client id, cut to 15 bytes")
    func threadName() async throws {
        #expect(MosquittoBus.networkThreadName(clientID: "stepcompass-position") == "mqtt position")
        #expect(MosquittoBus.networkThreadName(clientID: "stepcompass-dashboard-7") == "mqtt dashboard-")
        #expect(MosquittoBus.networkThreadName(clientID: "héllo-wörld-long") == "mqtt héllo-wö")
        try await withBroker { broker in
            let bus = try await MosquittoTrapTests.client(broker.port, "stepcompass-named")
            // The thread's name as the kernel has it (what top -H shows).
            let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap {
                try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
            }
            #expect(names.contains("mqtt named\n"))
            await bus.disconnect()
        }
    }

    @Test("a task that prefers it handles each message on the network thread, answers at once, and can close the bus")
    func answersOnTheNetworkThread() async throws {
        try await withBroker { broker in
            let server = try await MosquittoTrapTests.client(broker.port, "executor-server")
            let asker = try await MosquittoTrapTests.client(broker.port, "executor-asker")
            let answers = try await asker.subscribe(to: TopicFilter("answer/#"))
            let questions = try await server.subscribe(to: TopicFilter("ask/#"))
            let count = 50
            // The asker asks one question at a time and waits for its answer.
            let asking = Task.detached {
                var topics: [String] = []
                for index in 0..<count {
                    try await asker.publish(BusMessage(topic: "ask/\(index)", text: "\(index)", qos: .atLeastOnce))
                    guard let answer = await answers.next(timeout: .seconds(10)) else { break }
                    topics.append(answer.topic)
                }
                return topics
            }
            // For each question: whether it was handled on the network thread, and whether the answer was published
            // from there.
            let onNetworkThread = await Self.result(preferring: server.taskExecutor, within: .seconds(60)) {
                var onNetworkThread: [Bool] = []
                for _ in 0..<count {
                    guard let question = await questions.next(timeout: .seconds(10)) else { break }
                    onNetworkThread.append(server.executor.isCurrentThread)
                    let answer = BusMessage(topic: "answer/\(question.text)", text: question.text, qos: .atLeastOnce)
                    onNetworkThread.append((try? await server.publish(answer)) != nil && server.executor.isCurrentThread)
                }
                // Closing the bus from its own thread must not wait for itself.
                await server.disconnect()
                return onNetworkThread
            }
            #expect(onNetworkThread == Array(repeating: true, count: 2 * count))
            #expect(try await asking.value == (0..<count).map { "answer/\($0)" })
            await asker.disconnect()
        }
    }

    @Test("a task that prefers it runs before the connection, while the broker cannot be reached, and after the bus closed")
    func runsWithoutAConnection() async throws {
        let port = try MosquittoBrokerProcess.freePort()
        let configuration = MosquittoConfiguration(
            host: "127.0.0.1", port: port, clientID: "executor-alone", reconnectDelay: .milliseconds(200),
            reconnectDelayMax: .milliseconds(400))
        let bus = try MosquittoBus(configuration: configuration, logger: Logger(label: "test.executor-alone"))
        let executor = bus.taskExecutor
        // Whether each of ten resumptions ran on the network thread.
        @Sendable func yieldingWork() async -> [Bool] {
            var onNetworkThread: [Bool] = []
            for _ in 0..<10 {
                await Task.yield()
                onNetworkThread.append(bus.executor.isCurrentThread)
            }
            return onNetworkThread
        }
        // Not started: Swift's own threads take the work. (The bounds are generous: while the other suites run, Swift's
        // shared threads can be busy for seconds, and a task whose jobs nobody runs never finishes anyway.)
        let before = await Self.result(preferring: executor, within: .seconds(60)) { await yieldingWork() }
        #expect(before == Array(repeating: false, count: 10))
        // Started, and waiting between connection attempts (nothing listens on the port): the network thread runs it
        // while it waits.
        await #expect(throws: (any Error).self) { try await bus.connect(timeout: .milliseconds(300)) }
        let waiting = await Self.result(preferring: executor, within: .seconds(60)) { await yieldingWork() }
        #expect(waiting == Array(repeating: true, count: 10))
        // Closed: Swift's own threads again.
        await bus.disconnect()
        let after = await Self.result(preferring: executor, within: .seconds(60)) { await yieldingWork() }
        #expect(after == Array(repeating: false, count: 10))
    }
}
