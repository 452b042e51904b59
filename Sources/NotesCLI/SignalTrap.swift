import ArgumentParsing
import Dispatch
import NotesFetch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT and SIGTERM stop the walk at the next chunk; a second signal exits at once.
final class SignalTrap: @unchecked Sendable {
    // `sources` is written in `init` and read in `release`, on the caller's thread; the handlers run on
    // the signal queue and touch only `state`, which the mutex guards.
    private var sources: [any DispatchSourceSignal] = []
    private let state = Mutex<(count: Int, action: (@Sendable () -> Void)?)>((0, nil))

    /// Also runs `action` when a signal arrives (a signal may come before this is called: the
    /// cancellation flag covers that).
    func onSignal(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.action = action }
    }

    init(cancellation: CancellationFlag) {
        let queue = DispatchQueue(label: "notes-page.signals")
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in
                let (count, action) = state.withLock { state in
                    state.count += 1
                    return (state.count, state.action)
                }
                if count > 1 { exit(ExitStatus.interrupted.rawValue) }
                cancellation.cancel()
                action?()
            }
            source.resume()
            sources.append(source)
        }
    }

    func release() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
