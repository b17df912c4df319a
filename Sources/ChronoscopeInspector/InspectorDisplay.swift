@_spi(Benchmarks) import ChronoscopeScreen

/// Where the inspector's run loop draws and reads keys: the terminal (`TerminalSession`, which
/// the CLI makes conform), or a test's scripted screen.
///
/// The protocol keeps the ChronoscopeInspector library free of terminal code (docs/Architecture.md: the
/// screen model comes before the terminal): the loop lives here, the ncurses adapter stays thin.
package protocol InspectorDisplay {
  /// The width in columns.
  var width: Int { get }
  /// The height in rows.
  var height: Int { get }
  /// Whether frames are drawn in colour.
  var hasColors: Bool { get }
  /// Shows `grid`.
  func draw(_ grid: ScreenGrid)
  /// The next key, or nil when none came within `timeoutMilliseconds` (-1: wait for one) or a
  /// signal arrived (``interruption``).
  func readKey(timeoutMilliseconds: Int) -> InputKey?
  /// The signal (`SIGINT`, `SIGTERM`) that asked the program to end, if one did.
  var interruption: Int32? { get }
}
