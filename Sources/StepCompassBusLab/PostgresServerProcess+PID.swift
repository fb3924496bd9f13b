import BusTesting
import Foundation

extension PostgresServerProcess {
    /// The server's process id, for its CPU figure in the load reports.
    var serverPID: Int32? { ProcessCPU.pid(commandLineContaining: "\(directory.path)/data -p") }
}
