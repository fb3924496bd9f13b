public import Bus
public import ServiceRuntime

/// `stepcompass watch`: subscribes to what the dashboard shows and writes it as it changes, until the
/// task is cancelled (Ctrl-C) or the bus closes.
///
/// On a terminal it redraws one screen in place, at most once per ``Output/screen(refresh:width:colour:)``
/// interval however fast messages come; otherwise it writes one line per visible change (repeats
/// dropped), so the output can be piped, logged and tested.
public struct WatchSession: Sendable {
    /// How to write.
    public enum Output: Sendable, Hashable {
        /// Redraw a screen in place with ANSI escapes, at most once per `refresh`.
        case screen(refresh: Duration, width: Int, colour: Bool)
        /// One line per change.
        case lines
    }

    /// ANSI: hide the cursor and clear the screen (written once at the start of a screen session).
    public static let enterScreen = "\u{1B}[?25l\u{1B}[2J"
    /// ANSI: show the cursor again (written when a screen session ends, however it ends).
    public static let leaveScreen = "\u{1B}[?25h\n"

    public let bus: any MessageBus
    public let topics: Topics
    /// The device to show; nil shows the first device seen.
    public let device: String?

    /// Creates a session over a connected bus.
    public init(bus: any MessageBus, topics: Topics, device: String?) {
        self.bus = bus
        self.topics = topics
        self.device = device
    }

    /// Runs until cancelled or until the bus closes.
    /// - Parameters:
    ///   - output: Screen or lines.
    ///   - write: Writes text to the terminal as is (lines end with a newline).
    /// - Throws: ``StepCompassClientError/Code/invalidInput`` for a bad `--device`; a `BusError` when the
    ///   subscription fails.
    public func run(output: Output, write: @escaping @Sendable (String) -> Void) async throws {
        if let device {
            do { try DeviceID.validate(device) } catch { throw StepCompassClientError.invalidInput("--device: \(error.message)") }
        }
        let subscription = try await bus.subscribe(to: try WatchFilters(topics: topics, device: device).requests)
        switch output {
        case .lines:
            var state = WatchState(topics: topics, device: device)
            var previous: String?
            for await message in subscription {
                guard let change = state.apply(message), let line = WatchScreen.line(for: change, in: state),
                    line != previous
                else { continue }
                previous = line
                write(line + "\n")
            }
        case .screen(let refresh, let width, let colour):
            let board = WatchBoard(state: WatchState(topics: topics, device: device))
            write(Self.enterScreen)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in subscription { await board.apply(message) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        if let state = await board.takeIfChanged() {
                            write(Self.frame(WatchScreen.lines(state, width: width, colour: colour)))
                        }
                        try? await Task.sleep(for: refresh)
                    }
                }
                await group.next()
                group.cancelAll()
            }
            write(Self.leaveScreen)
        }
        try? await bus.unsubscribe(subscription)
    }

    /// A frame: cursor home, each line cleared to its end, and the rest of the screen cleared, so a
    /// redraw does not flicker the way a full clear does.
    public static func frame(_ lines: [String]) -> String {
        "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\n\u{1B}[J"
    }
}

/// The watch state shared by the task that reads messages and the task that redraws.
private actor WatchBoard {
    private var state: WatchState
    private var changed = true

    init(state: WatchState) {
        self.state = state
    }

    func apply(_ message: BusMessage) {
        if state.apply(message) != nil { changed = true }
    }

    /// The state if it changed since the last call.
    func takeIfChanged() -> WatchState? {
        guard changed else { return nil }
        changed = false
        return state
    }
}
