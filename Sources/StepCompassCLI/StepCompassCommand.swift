import ArgumentParser

/// `stepcompass`: the command-line client of the StepCompass bus.
///
/// A client, not a service: it connects with a random client id and a clean session, publishes no
/// status and leaves no last will.
@main
struct StepCompassCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass",
        abstract: "Watch and steer the StepCompass services from a terminal.",
        discussion: """
            Every command takes the same MQTT options as the services (--mqtt-host, --mqtt-port, \
            --mqtt-username, --mqtt-password, --mqtt-tls-ca, --topic-prefix), also as environment \
            variables (MQTT_HOST, MQTT_PORT, ...). It connects with a random client id \
            (stepcompass-cli-...) and a clean session, and publishes no service status.

            Exit status: 0 done; 1 the service refused or failed (an error reply, a rejected \
            command, several devices and no --device, a file that cannot be written), or for \
            `status`, a service that is not online; 64 a bad argument; 69 the broker or the service \
            did not answer; 78 a bad configuration value.

            Shell completion: stepcompass --generate-completion-script bash|zsh|fish (or make completions).

            Examples:
              stepcompass status
              stepcompass devices
              stepcompass watch
              stepcompass nearest muc-015 --count 5
              stepcompass activity --days 3
              stepcompass history --granularity day --csv
              stepcompass lock 45 --threshold 15
              stepcompass walk start --name "Morning loop"
              stepcompass walks
              MQTT_PORT=18830 stepcompass refresh-markers
            """,
        subcommands: [
            WatchCommand.self, NearestCommand.self, LockCommand.self, UnlockCommand.self, CalibrateCommand.self,
            NorthCommand.self, ResetPositionCommand.self, RefreshMarkersCommand.self, ActivityCommand.self, HistoryCommand.self,
            WalkCommand.self, WalksCommand.self, GPXCommand.self, StatusCommand.self, DevicesCommand.self, ForgetCommand.self,
        ])
}
