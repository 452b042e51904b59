internal import NotesJSON
import NotesSystem

/// The thread of one lane of a ``NotesFetcher``: it runs the lane's blocking exchanges (a transport blocks
/// the thread that calls it) and, as a `TaskExecutor`, the sequential walk itself, which prefers it. A
/// page of that walk then runs where the walk already is, with no switch from the walk's thread to the
/// transport's and back (two thread wake-ups a page, which cost a tenth of the time of 100-note pages).
///
/// The thread starts with the first work and ends with the lane (the last fetcher sharing it).
final class LaneThread: TaskExecutor, @unchecked Sendable {
    private let thread: WorkerThread

    /// - Parameter index: The lane's index, in the thread's name (`notes-lane-0`).
    init(index: Int) {
        thread = WorkerThread(name: "notes-lane-\(index)")
    }

    /// Runs `work` on the lane's thread, after the work before it.
    func async(_ work: @escaping () -> Void) {
        thread.submit(work)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        thread.submit { job.runSynchronously(on: executor) }
    }
}
