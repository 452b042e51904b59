/// The version of this package's commands (`notes-page`, `notes-gen`), which their `--version` prints:
/// the one place it is written.
public let packageVersion = "0.9.0"
