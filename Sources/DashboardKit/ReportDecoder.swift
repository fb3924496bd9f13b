import Foundation

/// Decodes one report from JSON and turns `DecodingError`'s dumps into one line a person can read.
struct ReportDecoder {
    let payload: [UInt8]

    func decode<Report: Decodable>(_ type: Report.Type, what: String) throws(DashboardInputError) -> Report {
        do {
            return try JSONDecoder().decode(Report.self, from: Data(payload))
        } catch let error as DecodingError {
            throw DashboardInputError(what: what, reason: Self.explain(error))
        } catch {
            throw DashboardInputError(what: what, reason: "\(error)")
        }
    }

    private static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "the payload" : "`\(keys.joined(separator: "."))`"
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "missing field `\(key.stringValue)`\(parent)"
        case .typeMismatch(let type, let context): return "\(path(context)) is not a \(type)"
        case .valueNotFound(let type, let context): return "\(path(context)) is null, expected a \(type)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
