import Dispatch
import NotesStore

/// Progress on standard error while it is a terminal: pages, notes, bytes, rate, elapsed, the share of
/// an announced total and the time left; while a rate limit holds the run, the wait, counting down.
final class Progress: @unchecked Sendable {
    let enabled: Bool
    private let report: @Sendable (String) -> Void
    private let now: @Sendable () -> Double
    private let started: Double
    // Everything below is touched on `queue` only: pages arrive from the walk, waits from the request
    // that met the limit, ticks from the timer.
    private let queue = DispatchQueue(label: "notes-page.progress")
    private var shown = -Double.infinity
    private var drawn = false
    private var finished = false
    /// The line of the last page committed.
    private var status = ""
    private var wait: (until: Double, reason: String)?
    private var timer: (any DispatchSourceTimer)?

    init(
        enabled: Bool, report: @escaping @Sendable (String) -> Void,
        now: @escaping @Sendable () -> Double = { Clock.now }
    ) {
        self.enabled = enabled
        self.report = report
        self.now = now
        started = now()
    }

    /// A page was committed: the line shows the run so far (at most five times a second), and a wait
    /// shown before is over.
    func update(_ state: WalkCheckpoint) {
        guard enabled else { return }
        queue.sync {
            let now = now()
            guard now - shown >= 0.2 || wait != nil else { return }
            shown = now
            let elapsed = now - started
            let rate = elapsed > 0 ? Double(state.bytes) / 1e6 / elapsed : 0
            status =
                "pages \(state.pages)  notes \(state.notes)  \(Clock.format(Double(state.bytes) / 1e6, places: 1)) MB  "
                + "\(Clock.format(rate, places: 1)) MB/s  \(Clock.format(elapsed, places: 1)) s"
            if let total = state.total, total > 0 {
                let done = Double(state.notes + state.skipped) / Double(total)
                status += "  \(Clock.format(min(100, done * 100), places: 0)) %"
                if done > 0 && done < 1 {
                    status += ", about \(Clock.format(elapsed * (1 - done) / done, places: 0)) s left"
                }
            }
            endWait()
            draw()
        }
    }

    /// The run waits `seconds` for a rate limit: the line says so and counts down once a second.
    func waiting(_ seconds: Double, reason: String) {
        guard enabled else { return }
        queue.sync {
            guard !finished else { return }
            wait = (now() + seconds, reason)
            draw()
            guard timer == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler { [weak self] in self?.redrawWait() }
            timer.resume()
            self.timer = timer
        }
    }

    /// Redraws the countdown, as the timer does once a second.
    func tick() {
        queue.sync { redrawWait() }
    }

    private func redrawWait() {
        guard let wait else { return }
        if now() >= wait.until { endWait() }
        draw()
    }

    /// Writes `text` on a line of its own: above the progress line, which is drawn again after it.
    func say(_ text: String) {
        guard enabled else { return report(text + "\n") }
        queue.sync {
            report((drawn ? "\r\u{1B}[K" : "") + text + "\n")
            if drawn { draw() }
        }
    }

    /// Clears the line, for the summary or an error.
    func finish() {
        guard enabled else { return }
        queue.sync {
            finished = true
            endWait()
            if drawn { report("\r\u{1B}[K") }
            drawn = false
        }
    }

    private func endWait() {
        wait = nil
        timer?.cancel()
        timer = nil
    }

    private func draw() {
        guard !finished else { return }
        var line = status
        if let wait {
            let left = max(0, Int((wait.until - now()).rounded(.up)))
            line += (line.isEmpty ? "" : "  ") + "\(wait.reason), resuming in \(left) s"
        }
        report("\r\u{1B}[K" + line)
        drawn = true
    }
}
