import AsyncHTTPClient
import Bus
import Foundation
import Logging
import MarkerKit
public import ServiceLifecycle
public import ServiceRuntime

/// The marker geodata service: keeps the source's markers in service and answers over the bus.
///
/// - Refresh: fetch → decode → index runs as one ``RefreshPipeline`` over a stream of triggers
///   (start, every `refreshInterval`, `markers/cmd/refresh`, and retries after a failure: quick, with backoff,
///   after a transient one; at the refresh interval after a permanent one, see ``MarkerServiceError/isPermanent``).
///   Each outcome is published on the retained `markers/status`; a new document also replaces the
///   retained `markers/collection` and is written to the disk cache.
/// - Requests: `markers/nearest` is answered to the MQTT 5 response topic, or to the payload's
///   `replyTo` for MQTT 3.1.1 clients.
/// - Devices: a `{device}/location` that moved far enough (or arrives after the markers changed)
///   gets a `{device}/nearby` list.
///
/// Nothing a client sends can stop it: bad input gets an error reply and a report on the error
/// topic. Failures of the source keep the last good markers in service.
public struct MarkerService: Service {
    let configuration: MarkerServiceConfiguration
    let context: BusServiceContext
    let source: MarkerSource
    let store: MarkerStore
    let cache: MarkerCache?
    let retry: RetryPolicy
    let metrics: MarkerMetrics

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: Source, timeouts, limits, intervals.
    ///   - context: The bus, topics, logger and error reporter.
    /// - Throws: ``MarkerServiceError/invalidConfiguration`` when the source is neither a URL nor a path.
    public init(
        configuration: MarkerServiceConfiguration, context: BusServiceContext
    ) throws(MarkerServiceError) {
        guard let source = MarkerSource(configuration.source) else {
            throw MarkerServiceError(
                .invalidConfiguration, "the source '\(configuration.source)' is neither an http(s) URL nor a file path")
        }
        self.configuration = configuration
        self.context = context
        self.source = source
        self.metrics = MarkerMetrics(context.metrics)
        self.store = MarkerStore(
            source: configuration.source, nearbyMinimumMove: configuration.nearbyMinimumMove, metrics: metrics)
        if case .url = source, let directory = configuration.cacheDirectory {
            self.cache = MarkerCache(directory: directory)
        } else {
            self.cache = nil
        }
        self.retry = RetryPolicy(base: configuration.retryBase, maximum: configuration.retryMax)
    }

    var bus: any MessageBus { context.bus }
    var topics: Topics { context.topics }
    var logger: Logger { context.logger }

    /// Waits for the bus, restores the cache, subscribes, says ready, then refreshes and answers until the group
    /// shuts down or the task is cancelled.
    public func run() async throws {
        try await context.serve { try await self.serve() }
    }

    private func serve() async throws {
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: MarkerFetcher.clientConfiguration(configuration))
        do {
            try await run(client: client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    private func run(client: HTTPClient) async throws {
        await restoreFromCache()
        let subscription = try await bus.subscribe(to: [
            SubscriptionRequest(try TopicFilter(topics.markersNearest), qos: .atLeastOnce),
            SubscriptionRequest(try TopicFilter(topics.markersRefresh), qos: .atLeastOnce),
            SubscriptionRequest(try TopicFilter(topics.allDevices(.location)), qos: .atLeastOnce),
        ])
        if await store.index == nil {
            await publishStatus(await store.status)
        }
        try await context.ready()
        let scheduler = RefreshScheduler(clock: context.clock)
        let pipeline = RefreshPipeline(
            fetcher: MarkerFetcher(source: source, configuration: configuration, client: client), store: store)
        await scheduler.trigger(.startup)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await update in pipeline.updates(scheduler.triggers) {
                    await apply(update, scheduler: scheduler)
                }
            }
            group.addTask {
                for await message in subscription {
                    await handle(message, scheduler: scheduler)
                }
            }
            await group.next()
            group.cancelAll()
            await scheduler.stop()
        }
        await scheduler.stop()
        try? await bus.unsubscribe(subscription)
    }

    /// Routes one received message; never throws.
    func handle(_ message: BusMessage, scheduler: RefreshScheduler) async {
        let started = ContinuousClock.now
        defer { context.metrics.handled(message, since: started) }
        if message.topic == topics.markersNearest {
            await answerNearest(message)
        } else if message.topic == topics.markersRefresh {
            do {
                _ = try PayloadDecoder().decode(RefreshCommand.self, from: message.payload)
                logger.info("refresh requested", metadata: ["mqtt.topic": "\(message.topic)"])
                await scheduler.trigger(.command)
            } catch {
                await context.errors.reject(message, reason: error.message)
            }
        } else if let (device, kind) = topics.parseDeviceTopic(message.topic), kind == .location {
            await handleLocation(message, device: device)
        }
    }
}
