#if canImport(SwiftUI)
    public import SwiftUI

    /// The notes screen for Apple platforms: draws the model's ``NotesScreenModel/phase`` and forwards the
    /// reader's actions to it. It holds no logic of its own.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    public struct NotesView: View {
        private let model: NotesScreenModel

        /// - Parameter model: The screen's model; the view starts it when it appears and cancels it when it
        ///   disappears.
        public init(model: NotesScreenModel) {
            self.model = model
        }

        public var body: some View {
            content
                .onAppear { model.load() }
                .onDisappear { model.cancel() }
        }

        @ViewBuilder
        private var content: some View {
            switch model.phase {
            case .idle, .loading:
                ProgressView()
                    .accessibilityLabel(model.phase.accessibilityLabel)
            case .empty:
                Text("No notes yet")
            case .loaded(let rows, let next):
                List {
                    ForEach(rows) { row in
                        Text(row.title)
                    }
                    footer(next)
                }
                .refreshable { await model.refresh().value }
            case .failed(let failure):
                failed(failure)
            case .sessionExpired:
                VStack(spacing: 12) {
                    Text("Your session has expired. Sign in again to see your notes.")
                    if model.canSignIn {
                        Button("Sign in") { model.signIn() }
                    }
                }
                .accessibilityElement(children: .contain)
                .accessibilityLabel(model.phase.accessibilityLabel)
            }
        }

        /// What follows the rows: nothing at the end, else the "load more" trigger, a spinner, or the
        /// failed page with "Try again".
        @ViewBuilder
        private func footer(_ next: NextPageState) -> some View {
            switch next {
            case .end:
                EmptyView()
            case .available:
                // Appears when the reader scrolls to the end of the list.
                ProgressView()
                    .onAppear { model.loadMore() }
            case .loading:
                ProgressView()
                    .accessibilityLabel("Loading more notes")
            case .failed(let failure):
                failed(failure)
            }
        }

        private func failed(_ failure: LoadFailure) -> some View {
            VStack(spacing: 12) {
                Text(failure.reason)
                if failure.canRetry {
                    Button("Try again") { model.retry() }
                }
            }
            .accessibilityElement(children: .contain)
            .accessibilityLabel(failure.accessibilityLabel)
        }
    }
#endif
