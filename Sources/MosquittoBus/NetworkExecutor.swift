import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the jobs of tasks that prefer it on the bus's network thread, between turns of its loop.
///
/// A message's usual way through a service costs two thread switches: the network thread hands it to a
/// subscription and wakes a thread of Swift's pool to handle it, and that thread queues the answer and wakes the
/// network thread to write it. A task that prefers this executor (`withTaskExecutorPreference`, see
/// ``MosquittoBus/taskExecutor``) is resumed on the network thread itself, right after the messages that resumed
/// it were routed, and what it publishes is written on the same turn: no switch, as a C client handling a message in
/// its callback.
///
/// The price is that the network thread reads nothing while such a job runs: a task that prefers it must not block
/// (no file or database I/O, no waiting on a lock another thread holds for long), and its work per message must be
/// small. Jobs that arrive while the thread is not running (before its start, after its end) go to Swift's global
/// executor, so a task that prefers a closed bus still runs.
final class NetworkExecutor: TaskExecutor, Sendable {
    private struct State {
        var jobs: [UnownedJob] = []
        /// The network thread, while it runs; nil before its start and after its end.
        var thread: pthread_t?

        /// Takes the queued jobs, leaving none.
        mutating func takeJobs() -> [UnownedJob] {
            defer { jobs.removeAll(keepingCapacity: true) }
            return jobs
        }
    }

    private let state = Mutex(State())
    private let wake: NetworkWake

    init(wake: NetworkWake) {
        self.wake = wake
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = state.withLock { state -> Bool in
            guard state.thread != nil else { return false }
            state.jobs.append(job)
            return true
        }
        if queued {
            wake.signal()
        } else {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    /// Whether jobs are waiting (the network thread then does not wait in `poll`).
    var hasJobs: Bool { state.withLock { !$0.jobs.isEmpty } }

    /// The network thread runs from now on: jobs queue for it.
    func threadStarted() {
        let thread = pthread_self()
        state.withLock { $0.thread = thread }
    }

    /// Whether the caller runs on the network thread.
    var isCurrentThread: Bool {
        guard let thread = state.withLock({ $0.thread }) else { return false }
        return pthread_equal(thread, pthread_self()) != 0
    }

    /// The network thread has ended: the jobs still queued, and those to come, go to the global executor.
    func threadFinished() {
        let left = state.withLock { state -> [UnownedJob] in
            state.thread = nil
            return state.takeJobs()
        }
        for job in left { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Runs the jobs queued so far on the network thread, and those they queue in turn (a task that moves between
    /// an actor and the bus queues a job for each move), up to ``roundLimit`` rounds: the socket waits meanwhile.
    /// - Returns: Whether any job ran.
    @discardableResult
    func runQueuedJobs() -> Bool {
        var ran = false
        for _ in 0..<Self.roundLimit {
            let jobs = state.withLock { $0.jobs.isEmpty ? [] : $0.takeJobs() }
            if jobs.isEmpty { break }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            ran = true
        }
        return ran
    }

    /// The most rounds of jobs run before the network thread turns to its socket again.
    static let roundLimit = 32
}
