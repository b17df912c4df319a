import CChronoscopeNCursesW
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal, taken over with ncurses: draws ``ScreenGrid``s and reads keys as ``InputKey``s.
///
/// A thin adapter with no logic of its own: everything worth testing happens in the grid before it
/// gets here.
///
/// ```swift
/// let terminal = try TerminalSession()
/// defer { terminal.stop() }
/// var grid = ScreenGrid(width: terminal.width, height: terminal.height)
/// grid.write("Press q to quit", row: 0, column: 0, style: Style(bold: true))
/// terminal.draw(grid)
/// while terminal.readKey(timeoutMilliseconds: 100) != .character("q") {}
/// ```
///
/// The terminal is put back (main screen, echo, cursor) by ``stop()``, by `deinit` — which is how
/// Ctrl-C and `SIGTERM` end a session: see ``interruption`` — and on a crash (SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS:
/// a callback in the one crash-handler chain writes precomputed bytes that leave the alternate
/// screen and puts the terminal's modes back, then the signal goes on to the handler that was
/// there before, so Swift's backtrace still prints).
///
/// - Warning: Only one session can run at a time, and it must be used from one thread.
package final class TerminalSession {
  /// Whether a session is running: ncurses and the crash handlers are process-wide.
  private static let active = Mutex(false)

  private var screen: OpaquePointer?
  private var window: UnsafeMutablePointer<WINDOW>?
  private var colorPairs: ColorPairs?
  /// One character cell's text for `setcchar`: up to `CCHARW_MAX` scalars and a terminating 0.
  private var characters = [wchar_t](repeating: 0, count: Int(CCHARW_MAX) + 1)

  /// Whether cells are drawn in colour: the terminal has colours, `colors` was true and
  /// `NO_COLOR` is unset or empty. Without colour only bold, reverse, dim and underline show.
  package let hasColors: Bool

  /// Takes over the terminal: alternate screen, no echo, keys one at a time, cursor hidden.
  ///
  /// Sets the locale from the environment first (`setlocale(LC_ALL, "")`), so UTF-8 text draws
  /// correctly under a UTF-8 `LANG`. Ctrl-C still sends `SIGINT` (keys are read in cbreak mode,
  /// not raw); the session catches it and `SIGTERM` and reports them as ``interruption``.
  ///
  /// - Parameter colors: Pass false to draw without colours even on a colour terminal.
  /// - Throws: ``TerminalError/notATerminal`` when standard input or output is not a terminal,
  ///   ``TerminalError/cannotInitialize(term:)`` when ncurses does not know `TERM`, and
  ///   ``TerminalError/alreadyActive`` when another session is running.
  package init(colors: Bool = true) throws {
    guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
      throw TerminalError.notATerminal
    }
    let claimed = Self.active.withLock { active in
      if active { return false }
      active = true
      return true
    }
    guard claimed else { throw TerminalError.alreadyActive }

    setlocale(LC_ALL, "")
    CrashRestore.saveModes()
    InterruptSignals.install()
    guard let screen = cncursesw_newterm(), let window = cncursesw_stdscr() else {
      InterruptSignals.uninstall()
      Self.active.withLock { $0 = false }
      throw TerminalError.cannotInitialize(term: getenv("TERM").map { String(cString: $0) })
    }
    self.screen = screen
    self.window = window
    cbreak()
    noecho()
    nonl()
    keypad(window, true)
    curs_set(0)
    set_escdelay(25)
    // Clicks and the wheel as ``InputKey/mouse(_:)``, each press at once (no waiting to tell a
    // click from a double click). Shift-drag still selects text in most terminals.
    mousemask(CursesInput.mouseMask, nil)
    mouseinterval(0)

    let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
    if colors, !noColor, has_colors(), start_color() == OK {
      colorPairs = ColorPairs(
        hasDefaultColors: use_default_colors() == OK, limit: Int(cncursesw_color_pairs()))
    }
    hasColors = colorPairs != nil
    CrashRestore.arm()
  }

  deinit { stop() }

  /// The signal that asked the program to end — `SIGINT` (Ctrl-C) or `SIGTERM` — or nil.
  ///
  /// The session catches both rather than letting them end the process, so that the owner can
  /// leave through ``stop()`` and exit with the status shells expect (128 + the signal: 130 for
  /// Ctrl-C, 143 for `SIGTERM`). ``readKey(timeoutMilliseconds:)`` returns nil at once when one
  /// arrives; check this after every read:
  ///
  /// ```swift
  /// if let signal = terminal.interruption {
  ///   terminal.stop()
  ///   exit(128 + signal)
  /// }
  /// ```
  package var interruption: Int32? {
    let signal = InterruptSignals.received
    return signal == 0 ? nil : signal
  }

  /// The terminal's width in columns; 0 after ``stop()``.
  package var width: Int { size.width }

  /// The terminal's height in rows; 0 after ``stop()``.
  package var height: Int { size.height }

  private var size: (width: Int, height: Int) {
    guard let window else { return (0, 0) }
    var rows: Int32 = 0
    var columns: Int32 = 0
    cncursesw_getmaxyx(window, &rows, &columns)
    return (Int(columns), Int(rows))
  }

  /// Shows `grid`: copies every cell with its style, then updates the terminal once.
  ///
  /// A grid larger than the terminal is clipped; a smaller one leaves the rest blank. Colour pairs
  /// are allocated the first time a foreground/background combination appears. A control
  /// character that reached a cell despite the grid's sanitizing is drawn as U+FFFD, so a cell can
  /// never move the cursor or send an escape sequence. A grapheme that ncurses and the terminal,
  /// measuring code point by code point, would measure otherwise than the grid (an emoji
  /// sequence, `❤️`) is drawn as `TextWidth.terminalPieces(of:columns:)` says, so the rest of the
  /// row stays in its columns.
  ///
  /// - Complexity: O(cells); ncurses sends only what changed since the last draw.
  package func draw(_ grid: ScreenGrid) {
    guard let window else { return }
    // Start from blank so a cell whose wide character the terminal measures narrower than the grid
    // does not leave the previous frame's text in the column after it.
    werase(window)
    let (columns, rows) = size
    for row in 0..<min(grid.height, rows) {
      for column in 0..<min(grid.width, columns) {
        let cell = grid[row, column]
        if cell.isContinuation { continue }
        if cell.text.utf8.count == 1 {
          put(cell, row: row, column: column, in: window)
          continue
        }
        // What ncurses and the terminal measure code point by code point must take the columns
        // the grid gave the grapheme, or the rest of the row moves.
        let wide = column + 1 < grid.width && grid[row, column + 1].isContinuation
        let pieces = TextWidth.terminalPieces(of: cell.text, columns: wide ? 2 : 1)
        for (offset, piece) in pieces.enumerated() where column + offset < columns {
          put(Cell(text: piece, style: cell.style), row: row, column: column + offset, in: window)
        }
      }
    }
    wnoutrefresh(window)
    doupdate()
  }

  private func put(_ cell: Cell, row: Int, column: Int, in window: UnsafeMutablePointer<WINDOW>) {
    var count = 0
    for scalar in cell.text.unicodeScalars.prefix(Int(CCHARW_MAX)) {
      characters[count] = wchar_t(bitPattern: scalar.value)
      count += 1
    }
    if count == 0 {
      characters[0] = 0x20
      count = 1
    }
    if characters[0] < 0x20 || (0x7F..<0xA0).contains(characters[0]) { characters[0] = 0xFFFD }
    characters[count] = 0

    var attributes = cncursesw_a_normal()
    let style = cell.style
    if style.bold { attributes |= cncursesw_a_bold() }
    if style.reverse { attributes |= cncursesw_a_reverse() }
    if style.dim { attributes |= cncursesw_a_dim() }
    if style.underline { attributes |= cncursesw_a_underline() }
    let pair = colorPairs?.pair(foreground: style.foreground, background: style.background) ?? 0

    var character = cchar_t()
    _ = characters.withUnsafeBufferPointer {
      setcchar(&character, $0.baseAddress, attributes, pair, nil)
    }
    // Writing the bottom-right cell reports ERR (the cursor cannot advance) but draws it.
    _ = mvwadd_wch(window, Int32(row), Int32(column), &character)
  }

  /// Waits up to `timeoutMilliseconds` for a key or a resize.
  ///
  /// ```swift
  /// switch terminal.readKey(timeoutMilliseconds: 250) {
  /// case .resize(let width, let height)?: relayout(width, height)
  /// case let key?: handle(key)
  /// case nil: tick()
  /// }
  /// ```
  ///
  /// - Parameter timeoutMilliseconds: How long to wait; a negative value waits for ever, until
  ///   a key, a resize or a signal.
  /// - Returns: The key; `.resize` with the new size after the terminal was resized; `.mouse` for
  ///   a press of the main button or a turn of the wheel; nil when the time ran out, for a key
  ///   the inspector does not use (function keys, control characters, other buttons), at once
  ///   when ``interruption`` is set, or after ``stop()``.
  package func readKey(timeoutMilliseconds: Int) -> InputKey? {
    guard window != nil else { return nil }
    guard timeoutMilliseconds < 0 else {
      return interruption == nil ? read(timeoutMilliseconds: timeoutMilliseconds).key : nil
    }
    // Waiting for ever, a signal must still end the wait. It interrupts a read only when it
    // lands during it; one that lands while the owner draws, or between the look at the flag
    // and the read, would interrupt nothing, and the read would wait for the next key. So the
    // wait is a poll of the terminal and of the pipe the signal handler writes to, which ends
    // whenever the signal came; the key is then read without waiting.
    while interruption == nil {
      let (key, input) = read(timeoutMilliseconds: 0)
      if input { return key }
      var waits = [
        pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
        pollfd(fd: InterruptSignals.wakeUpDescriptor, events: Int16(POLLIN), revents: 0),
      ]
      // A resize (SIGWINCH) ends the poll too (EINTR); the next read reports it.
      _ = poll(&waits, nfds_t(waits.count), -1)
    }
    return nil
  }

  /// One read: the key, and whether anything was read at all (false when the time ran out or a
  /// signal interrupted it).
  private func read(timeoutMilliseconds: Int) -> (key: InputKey?, input: Bool) {
    guard let window else { return (nil, false) }
    wtimeout(window, Int32(clamping: max(timeoutMilliseconds, -1)))
    var value: wint_t = 0
    switch wget_wch(window, &value) {
    case KEY_CODE_YES:
      if Int32(bitPattern: value) == KEY_RESIZE {
        let (width, height) = size
        return (.resize(width: width, height: height), true)
      }
      if Int32(bitPattern: value) == KEY_MOUSE {
        var event = MEVENT()
        // A mouse report was read, whatever getmouse makes of it.
        guard getmouse(&event) == OK else { return (nil, true) }
        return (CursesInput.key(mouseState: event.bstate, column: event.x, row: event.y), true)
      }
      return (CursesInput.key(code: Int32(bitPattern: value)), true)
    case OK:
      return (CursesInput.key(character: value), true)
    default:
      return (nil, false)
    }
  }

  /// Gives the terminal back: main screen, echo and cursor restored. Safe to call more than once;
  /// `deinit` calls it too.
  package func stop() {
    guard let screen else { return }
    CrashRestore.disarm()
    endwin()
    InterruptSignals.uninstall()
    delscreen(screen)
    self.screen = nil
    window = nil
    colorPairs = nil
    Self.active.withLock { $0 = false }
  }
}
