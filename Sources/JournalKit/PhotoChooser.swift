/// Picks a photo point's photo from a search's results.
public enum PhotoChooser {
    /// The first of `candidates` (in the services' order: nearest first) whose ``PhotoCandidate/id`` is not in
    /// `used` (the photos the walk already shows); nil when every candidate is used or there are none.
    public static func choose(_ candidates: [PhotoCandidate], excluding used: Set<String>) -> PhotoCandidate? {
        candidates.first { !used.contains($0.id) }
    }
}
