import Dispatch
import Foundation
import NotesSystem
import Synchronization
import Testing

/// The thread a large page's parse moves to: its work in order, and a wait that ends only once the work
/// before it has.
@Suite("A worker thread")
struct WorkerThreadTests {
    @Test("awaitIdle returns only once the work submitted before it has ended, not while it runs")
    func awaitIdleWaitsForTheWork() {
        let thread = WorkerThread(name: "notes-test")
        let release = DispatchSemaphore(value: 0)
        let ended = Mutex(false)
        thread.submit {
            release.wait()
            ended.withLock { $0 = true }
        }
        let returned = DispatchSemaphore(value: 0)
        let waiter = Thread {
            thread.awaitIdle()
            let hasEnded = ended.withLock { $0 }
            #expect(hasEnded, "awaitIdle returned before the work ended")
            returned.signal()
        }
        waiter.start()
        // While the work is held, the wait must not end.
        #expect(returned.wait(timeout: .now() + 0.3) == .timedOut)
        release.signal()
        #expect(returned.wait(timeout: .now() + 30) == .success)
        #expect(thread.completed == 1)
    }
}

extension WorkerThreadTests {
    @Test("A wait for one piece of work ends with it, while the work submitted after it still runs")
    func awaitCompletionOfOne() {
        let thread = WorkerThread(name: "notes-test")
        let first = thread.submit {}
        let release = DispatchSemaphore(value: 0)
        let second = thread.submit { release.wait() }
        #expect(second == first + 1)
        let returned = DispatchSemaphore(value: 0)
        let waiter = Thread {
            thread.awaitCompletion(of: first)
            returned.signal()
        }
        waiter.start()
        #expect(returned.wait(timeout: .now() + 30) == .success, "the wait for the first work waited for the second")
        release.signal()
        thread.awaitIdle()
        #expect(thread.completed == 2)
    }
}
