import ArgumentParser
import ServiceRuntime

/// The options of every command: the services' MQTT options and how long to try to reach the broker.
struct ClientOptions: ParsableArguments {
    @OptionGroup var runtime: RuntimeOptions

    @Option(name: .customLong("connect-timeout"), help: "Seconds to keep trying to reach the broker before giving up (default 3).")
    var connectTimeout: Double = 3

    func validate() throws {
        guard connectTimeout.isFinite, connectTimeout > 0, connectTimeout <= 300 else {
            throw ValidationError("--connect-timeout must be more than 0 and at most 300 seconds")
        }
    }
}

/// The `--wait` of a command that reads the broker's retained messages (`devices`, `status`).
struct RetainedReadOptions: ParsableArguments {
    @Option(name: .customLong("wait"), help: "Seconds to wait at most for the retained messages (default 2).")
    var wait: Double = 2

    func validate() throws {
        guard wait.isFinite, wait > 0, wait <= 300 else { throw ValidationError("--wait must be more than 0 and at most 300 seconds") }
    }

    /// How long to wait for the retained messages.
    var window: Duration { .seconds(checked: wait) }
}

/// The options of a command to one device.
struct DeviceOptions: ParsableArguments {
    @Option(name: .customLong("device"), help: "The device (default: the only device that has published).")
    var device: String?

    @Option(name: .customLong("wait"), help: "Seconds to wait for the service to confirm the command; 0 sends without waiting (default 2).")
    var wait: Double = 2

    func validate() throws {
        if let device {
            do { try DeviceID.validate(device) } catch { throw ValidationError("--device: \(error.message)") }
        }
        guard wait.isFinite, wait >= 0, wait <= 300 else {
            throw ValidationError("--wait must be 0 to 300 seconds")
        }
    }
}

extension DeviceOptions {
    /// The device a command names: as its argument (`stepcompass walks phone-1`) or with --device, which must agree.
    static func device(argument: String?, option: String?) throws -> String? {
        if let argument {
            do { try DeviceID.validate(argument) } catch { throw ValidationError("DEVICE: \(error.message)") }
            if let option, option != argument {
                throw ValidationError("the device is given twice ('\(argument)' and --device '\(option)'): give it once")
            }
        }
        return argument ?? option
    }
}

extension Duration {
    /// A duration from a number of seconds given on the command line.
    static func seconds(checked value: Double) -> Duration {
        .milliseconds(Int64((value * 1_000).rounded()))
    }
}
