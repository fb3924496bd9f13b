public import ActivityKit

/// How both stores keep a ``StepTally`` in `device_tally`: `last_count`, `total`, the session's recent counts in
/// `recent_counts` as decimal numbers separated by spaces (at most ``StepTally/recentLimit``, a few hundred bytes), and
/// the latest time of a count applied in `updated_at` (0 for none).
extension StepTally {
    /// The row's `recent_counts` column.
    var recentColumn: String { recent.map(String.init).joined(separator: " ") }

    /// The row's `updated_at` column.
    var timeColumn: Double { lastTime ?? 0 }

    /// A tally read from a row. A row written before schema version 2 has no recent counts: its last count stands in.
    init(lastCount: Int64, total: Int64, recentColumn: String, timeColumn: Double) {
        let recent = recentColumn.split(separator: " ").compactMap { Int64($0) }
        self.init(total: total, recent: recent.isEmpty ? [lastCount] : recent, lastTime: timeColumn > 0 ? timeColumn : nil)
    }
}
