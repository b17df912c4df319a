/// Why a ``TerminalSession`` could not start.
package enum TerminalError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Standard input or output is not a terminal (a pipe or a file): run the command in a terminal,
  /// or use a non-interactive command instead.
  case notATerminal
  /// ncurses could not set up the terminal named by `TERM`; check that `TERM` is set and that its
  /// terminfo entry is installed.
  case cannotInitialize(term: String?)
  /// Another ``TerminalSession`` is running; stop it before starting a new one.
  case alreadyActive

  /// A sentence saying what went wrong and what to do.
  package var description: String {
    switch self {
    case .notATerminal:
      "standard input and output must be a terminal; run this command in a terminal"
    case .cannotInitialize(let term):
      "cannot set up the terminal (TERM=\(term ?? "unset")); set TERM to a terminal type terminfo knows"
    case .alreadyActive:
      "a terminal session is already running; stop it first"
    }
  }
}
