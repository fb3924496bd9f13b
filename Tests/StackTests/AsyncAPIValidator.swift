import BusTesting
import Foundation

/// `scripts/check-asyncapi.py`, the validator of payloads against `Docs/asyncapi.yaml`, run by a Python that has its
/// packages (PyYAML and jsonschema): the virtual environment `scripts/check-asyncapi-all.sh` makes
/// (`.build/venv-asyncapi`; `make test` runs that script before the Swift tests), else a `python3` on PATH that can
/// import both.
enum AsyncAPIValidator {
    /// The Python to run the validator with; nil when none can import `yaml` and `jsonschema`. Looked for once.
    static let python = Task<String?, Never> {
        var candidates = [Repository.root.appendingPathComponent(".build/venv-asyncapi/bin/python").path]
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(folder)/python3")
        }
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            if await canImportPackages(candidate) { return candidate }
        }
        return nil
    }

    static let missing =
        "no Python with PyYAML and jsonschema: run scripts/check-asyncapi-all.sh (it makes .build/venv-asyncapi; make test runs it) "
        + "or install python3-yaml and python3-jsonschema"

    /// Whether tests that validate against the document should run: always in CI (`CI=true`), where a missing Python
    /// fails them, and elsewhere only when one is found.
    static func shouldRun() async -> Bool {
        if ProcessInfo.processInfo.environment["CI"] == "true" { return true }
        return await python.value != nil
    }

    private static func canImportPackages(_ python: String) async -> Bool {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("python-probe-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: output) }
        guard let probe = try? await ChildProcess(executable: python, arguments: ["-c", "import yaml, jsonschema"], outputFile: output)
        else { return false }
        return await probe.waitForExit(timeout: .seconds(60)) == 0
    }

    /// Validates a capture in `mosquitto_sub -v`'s format (`scripts/check-asyncapi.py --quiet --mosquitto-sub FILE`).
    /// - Returns: The validator's exit status (nil if it did not finish within 5 minutes) and its output.
    static func validate(mosquittoSubCapture file: URL, python: String) async throws -> (status: Int32?, output: String) {
        let output = file.deletingPathExtension().appendingPathExtension("asyncapi.log")
        let validator = try await ChildProcess(
            executable: python,
            arguments: [Repository.root.appendingPathComponent("scripts/check-asyncapi.py").path, "--quiet", "--mosquitto-sub", file.path],
            environment: ["PYTHONDONTWRITEBYTECODE": "1"], outputFile: output)
        let status = await validator.waitForExit(timeout: .seconds(300))
        if status == nil { validator.signal(SIGKILL) }
        return (status, validator.output)
    }
}
