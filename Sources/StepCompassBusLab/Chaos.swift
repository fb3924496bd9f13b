import ArgumentParser
import Foundation
import StepCompassTesting

/// `stepcompass-buslab chaos`: the same fleet walk twice, once clean and once while services are SIGKILLed and the
/// broker is restarted, and the two compared exactly.
struct Chaos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Kill services and restart the broker during a fleet walk; compare with a clean run of the same walk.",
        discussion: """
            Runs the stack (compass, position, activity, journal, bridge, markers, dashboard; the journal's photos from a \
            local stand-in) on a private mosquitto with the project's persistence settings, and walks a fleet of \
            simulated walkers through it twice: once clean, once while a driver SIGKILLs random services \
            (--service-kills, each back after 0.5-5 s) and stops the broker (--broker-restarts, SIGKILL and SIGTERM \
            in turn, back after 0.5-3 s, the first while a service is down). Then it compares: every device's \
            retained position (x and y to 1e-9, steps and updates exactly), its step history total, its journal photo \
            points; each run must also match the walker's own step count, have no journal photo twice, and every \
            service must exit 0 within 5 s of SIGTERM. The walkers walk straight (--course) with exact sensors, so a \
            position depends only on the steps, not on which heading happened to arrive first. Exit status 3 on any \
            difference, with the device, the run's events and the seed to replay it (--seed). Needs the services \
            built next to this executable (`swift build`) and mosquitto.
            """)

    @Option(help: "Walkers in the fleet.") var devices = 20
    @Option(help: "Speed of the walk (times real time).") var speed = 10.0
    @Option(help: "Simulated seconds of walking.") var duration = 1_200.0
    @Option(help: "Random SIGKILLs of services.") var serviceKills = 10
    @Option(help: "Broker restarts (SIGKILL and SIGTERM in turn).") var brokerRestarts = 10
    @Option(help: "Seed of the faults and the walk (default: a random one, printed).") var seed: UInt64?
    @Option(help: "IMU samples a second of each walker.") var imuRate = 10.0
    @Option(help: "Real seconds after the walk starts before the first fault.") var warmUp = 5.0
    @Option(help: "Real seconds before the walk ends by which every fault is over.") var coolDown = 10.0
    @Option(help: "Folder of the service executables (default: this executable's).") var executables: String?
    @Flag(help: "Keep the runs' folders (logs, databases, broker persistence) even when they agree.") var keep = false

    func validate() throws {
        guard devices >= 1, devices <= 1_000 else { throw ValidationError("--devices must be 1...1,000") }
        guard speed >= 1, speed <= 100 else { throw ValidationError("--speed must be 1...100") }
        guard duration >= 30 else { throw ValidationError("--duration must be at least 30 simulated seconds") }
        guard serviceKills >= 0, brokerRestarts >= 0 else { throw ValidationError("--service-kills and --broker-restarts must not be negative") }
        guard duration / speed > warmUp + coolDown + 6 else {
            throw ValidationError("the walk lasts \(duration / speed) s: it must be longer than --warm-up + --cool-down + 6 s")
        }
    }

    func run() async throws {
        let seed = seed ?? UInt64.random(in: 1...999_999)
        let folder = URL(fileURLWithPath: executables ?? BridgeUnderTest.executablePath(nil, executable: ""))
        for service in ChaosRun.services + ["sensors"] {
            try BridgeUnderTest.requireExecutable(folder.appendingPathComponent("stepcompass-\(service)").path, service: service)
        }
        let walkSeconds = duration / speed
        let plan = try ChaosPlan(
            seed: seed, services: ChaosRun.services, serviceKills: serviceKills, brokerRestarts: brokerRestarts,
            window: warmUp...(walkSeconds - coolDown))
        var random = SeededGenerator(seed: seed)
        let course = (Double.random(in: 0..<360, using: &random) * 10).rounded() / 10
        let replay =
            "stepcompass-buslab chaos --seed \(seed) --devices \(devices) --speed \(speed) --duration \(duration) --service-kills \(serviceKills) --broker-restarts \(brokerRestarts)"
        print("chaos: seed \(seed); \(devices) walkers, course \(course)°, \(duration) s at \(speed)x (\(walkSeconds) s)")
        print("chaos: replay with: \(replay)")
        print("chaos: the plan (\(plan.events.count) faults):")
        for event in plan.events { print("  \(event)") }

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-chaos-\(seed)-\(UUID().uuidString.prefix(6))")
        func walk(_ label: String, _ plan: ChaosPlan?) -> ChaosRun {
            ChaosRun(
                label: label, devices: devices, speed: speed, duration: duration, walkSeed: seed, course: course, imuRate: imuRate,
                plan: plan, executables: folder, folder: root.appendingPathComponent(label))
        }
        let began = ContinuousClock.now
        let (clean, _) = try await walk("clean", nil).run { print("chaos: \($0)") }
        let (chaos, events) = try await walk("chaos", plan).run { print("chaos: \($0)") }
        let elapsed = ContinuousClock.now - began

        let problems =
            clean.ownErrors.map { "clean run: \($0)" } + chaos.ownErrors.map { "chaos run: \($0)" } + chaos.differences(from: clean)
        let counts = plan.counts
        let steps = chaos.finalSteps.values.reduce(0, +)
        let photos = chaos.journals.values.reduce(0) { $0 + $1.photos.compactMap { $0 }.count }
        print(
            """
            chaos: faults injected: \(counts.serviceKills) service SIGKILLs, \(counts.brokerKills) broker SIGKILLs, \
            \(counts.brokerTerms) broker SIGTERMs
            chaos: messages published by the walkers: \(clean.published) clean, \(chaos.published) with faults
            chaos: \(devices) devices, \(steps) steps, \(chaos.positions.values.reduce(0) { $0 + $1.updates }) position updates, \
            \(photos) journal photos; both runs took \(elapsed)
            """)
        guard problems.isEmpty else {
            print("chaos: FAILED, \(problems.count) problems:")
            for problem in problems { print("  \(problem)") }
            print("chaos: the chaos run's events:")
            for event in events { print("  \(event)") }
            print("chaos: logs, databases and broker persistence kept in \(root.path)")
            print("chaos: replay with: \(replay)")
            throw ExitCode(3)
        }
        print("chaos: ok, every position, step history and journal equal to the clean run's")
        if keep {
            print("chaos: kept \(root.path)")
        } else {
            try? FileManager.default.removeItem(at: root)
        }
    }
}
