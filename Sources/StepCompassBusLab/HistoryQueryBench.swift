import ActivityKit
import ActivityStore
import ArgumentParser
import BusTesting
import Foundation
import Logging

/// `stepcompass-buslab history-query-bench`: a year of minute rows for one device in a store, then the time of a
/// day-granularity history query over the year.
struct HistoryQueryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history-query-bench",
        abstract: "Time a day-granularity history query over a year of minute rows (525,600) of one device.",
        discussion: """
            Fills a store through ActivityStore.apply in batches (--batch records each, one cumulative count a \
            minute for --days days) — SQLite in a temporary file, and PostgreSQL too with --database-url or \
            --postgres (a throwaway server) — checks that the day buckets sum to the steps sent, then times \
            --repeats history queries over the whole range per granularity (day, hour) and one day of minutes. \
            Exit code 3 when the day query's median is not under --target-ms.
            """)

    @Option(help: "Days of minute rows.") var days = 365
    @Option(help: "Records per apply (one transaction).") var batch = 10_000
    @Option(help: "Timed queries per granularity.") var repeats = 20
    @Option(help: "Target for the day query's median, in milliseconds.") var targetMs = 50.0
    @Option(help: "Also bench PostgreSQL at this URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE).") var databaseURL: String?
    @Flag(help: "Also bench PostgreSQL in a throwaway server (initdb in /tmp).") var postgres = false

    func validate() throws {
        guard days >= 1, days <= 3_660 else { throw ValidationError("--days must be 1...3660") }
        guard batch >= 1, repeats >= 1 else { throw ValidationError("--batch and --repeats must be at least 1") }
    }

    func run() async throws {
        var logger = Logger(label: "history-query-bench")
        logger.logLevel = .warning
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-hqb-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var passed = true
        let sqlite = try SQLiteActivityStore(path: folder.appendingPathComponent("activity.sqlite").path)
        passed = try await bench(sqlite, name: "SQLite") && passed

        var server: PostgresServerProcess?
        var url = databaseURL
        if url == nil, postgres {
            server = try await PostgresServerProcess.launch()
            url = server?.url
        }
        if let url {
            do {
                let store = try PostgresActivityStore(url: url, logger: logger)
                passed = try await bench(store, name: "PostgreSQL") && passed
            } catch {
                await server?.stop()
                throw error
            }
        }
        await server?.stop()
        if !passed { throw ExitCode(3) }
    }

    /// Fills `store`, times the queries, prints the figures; whether the day query met the target.
    private func bench(_ store: some ActivityStore, name: String) async throws -> Bool {
        try await store.migrate()
        let device = "hqb-\(UUID().uuidString.prefix(8))"
        // Whole UTC days from 2025-01-01, one count a minute; 0...9 steps a minute, never repeated counts.
        let first: Int64 = 1_735_689_600
        let minutes = days * 1_440
        var count: Int64 = 0
        var sent: Int64 = 0
        let clock = ContinuousClock()
        let fillStart = clock.now
        var records: [StepRecord] = []
        records.reserveCapacity(batch)
        for index in 0..<minutes {
            let time = first + Int64(index) * 60
            let steps = Int64(1 + (index * 7 + index / 1_440) % 9)
            count += steps
            sent += steps
            records.append(
                StepRecord(
                    device: device, count: count, time: Double(time) + 30,
                    buckets: BucketStarts(minute: time, hour: time - time % 3_600, day: time - time % 86_400)))
            if records.count == batch || index == minutes - 1 {
                _ = try await store.apply(records)
                records.removeAll(keepingCapacity: true)
            }
        }
        let fill = seconds(clock.now - fillStart)
        let end = first + Int64(minutes) * 60

        func time(_ granularity: Granularity, to: Int64) async throws -> (timings: [Double], buckets: [StepBucket]) {
            var timings: [Double] = []
            var buckets: [StepBucket] = []
            for _ in 0..<repeats {
                let start = clock.now
                buckets = try await store.history(device: device, from: first, to: to, granularity: granularity)
                timings.append(seconds(clock.now - start) * 1_000)
            }
            return (timings, buckets)
        }
        let day = try await time(.day, to: end)
        let hour = try await time(.hour, to: end)
        let minute = try await time(.minute, to: first + 86_400)
        try await store.close()

        let stored = day.buckets.reduce(0) { $0 + $1.steps }
        func line(_ label: String, _ result: (timings: [Double], buckets: [StepBucket])) -> String {
            let sorted = result.timings.sorted()
            return String(
                format: "  %@: %d buckets, first %.1f ms, median %.1f ms, min %.1f ms, max %.1f ms",
                label, result.buckets.count, result.timings[0], sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1])
        }
        let median = day.timings.sorted()[day.timings.count / 2]
        let ok = median < targetMs && stored == sent && day.buckets.count == days
        print(
            "history query bench, \(name): \(minutes) minute rows of one device (\(days) days) filled in \(String(format: "%.1f", fill)) s (\(String(format: "%.0f", Double(minutes) / max(1e-9, fill))) records/s, batches of \(batch))"
        )
        print(line("day over \(days) days", day))
        print(line("hour over \(days) days", hour))
        print(line("minute over 1 day", minute))
        print("  day buckets sum \(stored) of \(sent) steps sent")
        print(
            ok
                ? "  TARGET MET (day query median < \(String(format: "%.0f", targetMs)) ms)"
                : "  TARGET MISSED (day query median \(String(format: "%.1f", median)) ms, target \(String(format: "%.0f", targetMs)) ms\(stored == sent ? "" : ", sums differ"))"
        )
        return ok
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
