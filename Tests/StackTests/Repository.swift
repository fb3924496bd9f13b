import Foundation

/// This repository's checkout, where the stack tests read its configuration, scripts and sample data.
enum Repository {
    /// The folder above `Tests/StackTests/`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
