import ArgumentParser
import Foundation
import MarkerKit
import StepCompassContract
import WalkerSimulation

/// `stepcompass-buslab markers-bench`: MarkerKit's k-d tree on a million points, side by side with scipy's cKDTree on
/// the very same points and queries.
struct MarkersBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "markers-bench",
        abstract: "Time SpatialIndex's build and nearest-3 queries over 1,000,000 points beside scipy's cKDTree on the same points.",
        discussion: """
            The points and queries are Benchmarks/MarkerBenchmarks' (SplitMix64, seeds 42 and 7; uniform on the \
            sphere). Times the index build (best of --rounds), nearest-3 by coordinate over --queries distinct \
            queries (every query a new one; best of --rounds passes), nearest-3 by marker, and, for comparison, the \
            pattern the old package-benchmark case had (its query index restarted every sample, so the same 1,000 \
            cache-warm queries ran again and again). The anchor writes the points and queries to a temporary folder \
            and runs scripts/markers-anchors.py ckdtree: scipy's cKDTree over the same unit vectors, nearest-3 for \
            the same queries batched in one call on one worker (its best case) and one call per query; the nearest \
            point of the first 1,000 queries is compared. Exit code 3 when a committed threshold (--thresholds, the \
            markersBench entry) is missed.
            """)

    @Option(help: "Points in the index.") var points = 1_000_000
    @Option(help: "Distinct queries per pass.") var queries = 1_048_576
    @Option(help: "Rounds: builds and query passes (the best is reported).") var rounds = 3
    @OptionGroup var anchorOptions: MarkerAnchorOptions

    func validate() throws {
        guard points >= 10, points <= 20_000_000 else { throw ValidationError("--points must be 10...20000000") }
        guard queries >= 1_000, queries <= 20_000_000 else { throw ValidationError("--queries must be 1000...20000000") }
        guard rounds >= 1, rounds <= 20 else { throw ValidationError("--rounds must be 1...20") }
    }

    /// `count` markers uniform on the sphere, exactly as Benchmarks/MarkerBenchmarks' `randomMarkers` makes them.
    static func randomMarkers(count: Int, seed: UInt64) -> [Marker] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let latitude = asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi
            let longitude = Double.random(in: -180..<180, using: &rng)
            return Marker(id: String(i), name: "Marker \(i)", latitude: latitude, longitude: longitude)
        }
    }

    /// The benchmark's query points (seed 7), as MarkerBenchmarks draws them.
    static func queryPoints(count: Int) -> [(latitude: Double, longitude: Double)] {
        var rng = SplitMix64(seed: 7)
        return (0..<count).map { _ in
            (asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi, Double.random(in: -180..<180, using: &rng))
        }
    }

    func run() async throws {
        let markers = Self.randomMarkers(count: points, seed: 42)
        let queryList = Self.queryPoints(count: queries)
        let clock = ContinuousClock()
        var builds: [Double] = []
        var index = SpatialIndex(markers: [])
        for _ in 0..<rounds {
            let start = clock.now
            index = SpatialIndex(markers: markers)
            builds.append((clock.now - start).inSeconds)
        }
        var checksum = 0
        // Distinct: every query of a pass is a new point.
        var distinct: [Double] = []
        for _ in 0..<rounds {
            let start = clock.now
            for query in queryList {
                checksum &+= index.nearest(latitude: query.latitude, longitude: query.longitude, count: 3).count
            }
            distinct.append(Double(queryList.count) / (clock.now - start).inSeconds)
        }
        // The old benchmark's pattern: the same first 1,000 queries, sample after sample.
        let repeatedCount = min(queryList.count, 1_000_000)
        let repeatedStart = clock.now
        for iteration in 0..<repeatedCount {
            let query = queryList[iteration % 1_000]
            checksum &+= index.nearest(latitude: query.latitude, longitude: query.longitude, count: 3).count
        }
        let repeated = Double(repeatedCount) / (clock.now - repeatedStart).inSeconds
        var byMarker: [Double] = []
        for _ in 0..<rounds {
            let start = clock.now
            for iteration in 0..<queryList.count {
                checksum &+= index.nearest(toMarkerAt: (iteration &* 7_919) % markers.count, count: 3).count
            }
            byMarker.append(Double(queryList.count) / (clock.now - start).inSeconds)
        }
        let build = builds.min() ?? 0
        let best = distinct.max() ?? 0
        print(
            "markers-bench: SpatialIndex over \(points.grouped) points uniform on the sphere (Benchmarks/MarkerBenchmarks' seeds), best of \(rounds), one core"
        )
        print(String(format: "  build                                   %8.3f s", build))
        print(
            String(
                format: "  nearest-3 by coordinate, distinct       %8.0f k queries/s  (%@ different queries a pass)", best / 1_000,
                queryList.count.grouped as NSString))
        print(String(format: "  nearest-3 by marker, distinct           %8.0f k queries/s", (byMarker.max() ?? 0) / 1_000))
        print(
            String(
                format: "  nearest-3, 1,000 queries repeated       %8.0f k queries/s  (the old benchmark's pattern: %.1fx the distinct figure)",
                repeated / 1_000, repeated / max(best, 1)))

        var ratio: Double?
        if anchorOptions.noAnchor {
            print("  anchor: left out (--no-anchor)")
        } else {
            switch await anchor(markers: markers, queries: queryList, index: index) {
            case .success(let anchor):
                ratio = best / anchor.batch
                print(String(format: "  anchor: scipy %@ cKDTree, same points and queries:", anchor.version as NSString))
                print(
                    String(
                        format: "    build                                 %8.3f s        ratio %.2fx (cKDTree time / ours)", anchor.build,
                        anchor.build / build))
                print(
                    String(
                        format: "    nearest-3, batched, 1 worker          %8.0f k queries/s  ratio %.2fx (ours / cKDTree)", anchor.batch / 1_000,
                        ratio ?? 0))
                print(
                    String(
                        format: "    nearest-3, one call per query         %8.0f k queries/s  ratio %.2fx", anchor.loop / 1_000, best / anchor.loop))
                print("    nearest point of the first \(anchor.checked) queries: \(anchor.agree) the same in both")
            case .failure(let reason):
                print("  anchor: skipped (\(reason.description))")
            }
        }
        if checksum == 42 { print("") }  // keeps the queries observable

        try MarkerThresholds.verdict(
            path: anchorOptions.thresholds, entry: \.markersBench, size: \.points, expected: points, unit: "points",
            missed: { checks in
                var missed: [String] = []
                if best < checks.minNearest3PerSecond {
                    missed.append(String(format: "nearest-3 %.0f k/s < %.0f k/s", best / 1_000, checks.minNearest3PerSecond / 1_000))
                }
                if build > checks.maxBuildSeconds {
                    missed.append(String(format: "build %.3f s > %.3f s", build, checks.maxBuildSeconds))
                }
                if let minimum = checks.minRatioToCKDTree, let ratio, ratio < minimum {
                    missed.append(String(format: "ratio to cKDTree %.2fx < %.2fx", ratio, minimum))
                }
                return missed
            },
            met: { checks in
                String(
                    format: "nearest-3 >= %.0f k/s, build <= %.2f s%@", checks.minNearest3PerSecond / 1_000, checks.maxBuildSeconds,
                    checks.minRatioToCKDTree.map { String(format: ", ratio to cKDTree >= %.2fx", $0) } ?? "")
            })
    }

    struct CKDTreeFigures {
        var build: Double
        var batch: Double
        var loop: Double
        var checked: Int
        var agree: Int
        var version: String
    }

    /// Writes the points and queries, runs the cKDTree anchor, and compares the nearest point of the first queries.
    private func anchor(
        markers: [Marker], queries: [(latitude: Double, longitude: Double)], index: SpatialIndex
    ) async -> Result<CKDTreeFigures, MarkersFailure> {
        if let missing = anchorOptions.missingScript { return .failure(missing) }
        let (python, anchorScript) = (anchorOptions.python, anchorOptions.anchorScript)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-markers-bench-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Self.writePairs(markers.map { ($0.latitude, $0.longitude) }, to: folder.appendingPathComponent("points.f64"))
            try Self.writePairs(queries.map { ($0.latitude, $0.longitude) }, to: folder.appendingPathComponent("queries.f64"))
        } catch {
            return .failure(.init(description: "cannot write the points: \(error)"))
        }
        let checked = min(1_000, queries.count)
        guard
            let object = await PythonAnchor.run(
                python: python,
                arguments: [
                    anchorScript, "ckdtree", folder.appendingPathComponent("points.f64").path,
                    folder.appendingPathComponent("queries.f64").path, "--check", "\(checked)",
                ], timeout: .seconds(600)),
            let build = object["buildSeconds"] as? Double, let batch = object["batchQueriesPerSecond"] as? Double,
            let loop = object["loopQueriesPerSecond"] as? Double, let nearest = object["nearest"] as? [Int]
        else {
            return .failure(.init(description: "\(python) \(anchorScript) ckdtree gave no figures (is scipy importable?)"))
        }
        var agree = 0
        for (offset, theirs) in nearest.prefix(checked).enumerated() {
            let ours = index.nearest(latitude: queries[offset].latitude, longitude: queries[offset].longitude, count: 1).first
            if let ours, Int(ours.marker.id) == theirs { agree += 1 }
        }
        return .success(
            CKDTreeFigures(
                build: build, batch: batch, loop: loop, checked: checked, agree: agree, version: object["scipy"] as? String ?? "?"))
    }

    /// Little-endian float64 pairs, as numpy.fromfile reads them.
    private static func writePairs(_ pairs: [(Double, Double)], to url: URL) throws {
        var bytes = [UInt8]()
        bytes.reserveCapacity(pairs.count * 16)
        for (a, b) in pairs {
            withUnsafeBytes(of: a.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: b.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        try Data(bytes).write(to: url)
    }
}
