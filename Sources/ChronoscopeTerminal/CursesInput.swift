import CChronoscopeNCursesW
@_spi(Benchmarks) import ChronoscopeScreen

/// ncurses' key codes, characters and mouse reports as the inspector's keys. A namespace of its
/// own rather than initializers on `InputKey`: the screen model's type knows no terminal.
package enum CursesInput {
  /// The key for a function-key code from `get_wch` (it returned `KEY_CODE_YES`), or nil for one
  /// the inspector does not use. `KEY_RESIZE` and `KEY_MOUSE` are handled by the caller, which
  /// knows the new size and reads the mouse event.
  package static func key(code: Int32) -> InputKey? {
    switch code {
    case KEY_UP: return .up
    case KEY_DOWN: return .down
    case KEY_LEFT: return .left
    case KEY_RIGHT: return .right
    case KEY_PPAGE: return .pageUp
    case KEY_NPAGE: return .pageDown
    // Terminals whose description calls the editing keypad's Home and End Find and Select
    // (`\E[1~`, `\E[4~` under xterm's terminfo) send them for Home and End.
    case KEY_HOME, KEY_FIND, KEY_A1: return .home
    case KEY_END, KEY_SELECT, KEY_C1: return .end
    case KEY_ENTER: return .enter
    case KEY_BTAB: return .backTab
    case KEY_BACKSPACE: return .backspace
    default: return nil
    }
  }

  /// The key for a character from `get_wch` (it returned `OK`), or nil for a control character
  /// with no meaning here.
  package static func key(character value: UInt32) -> InputKey? {
    switch value {
    case 0x0D, 0x0A: return .enter
    case 0x1B: return .escape
    case 0x09: return .tab
    case 0x7F, 0x08: return .backspace
    case 0..<0x20, 0x80..<0xA0: return nil
    default:
      guard let scalar = Unicode.Scalar(value) else { return nil }
      return .character(Character(scalar))
    }
  }

  /// The buttons ``TerminalSession`` asks ncurses to report: the main button going down and the
  /// wheel, with the modifiers held.
  package static var mouseMask: mmask_t {
    cncursesw_button1_pressed() | cncursesw_button4_pressed() | cncursesw_button5_pressed()
      | cncursesw_button_shift() | cncursesw_button_ctrl() | cncursesw_button_alt()
  }

  /// The event for an ncurses mouse report (`getmouse` after `KEY_MOUSE`): its button state and
  /// cell, or nil for a button the inspector does not use (a release, the middle or right button).
  package static func key(mouseState state: mmask_t, column: Int32, row: Int32) -> InputKey? {
    let action: MouseEvent.Action
    if state & cncursesw_button1_pressed() != 0 {
      action = .press
    } else if state & cncursesw_button4_pressed() != 0 {
      action = .wheelUp
    } else if state & cncursesw_button5_pressed() != 0 {
      action = .wheelDown
    } else {
      return nil
    }
    return .mouse(
      MouseEvent(
        action, column: Int(column), row: Int(row),
        shift: state & cncursesw_button_shift() != 0,
        control: state & cncursesw_button_ctrl() != 0, alt: state & cncursesw_button_alt() != 0))
  }
}
