import CNCursesW
import Screen

extension InputKey {
  /// The key for a function-key code from `get_wch` (it returned `KEY_CODE_YES`), or nil for one
  /// the inspector does not use. `KEY_RESIZE` is handled by the caller, which knows the new size.
  init?(cursesKeyCode code: Int32) {
    switch code {
    case KEY_UP: self = .up
    case KEY_DOWN: self = .down
    case KEY_LEFT: self = .left
    case KEY_RIGHT: self = .right
    case KEY_PPAGE: self = .pageUp
    case KEY_NPAGE: self = .pageDown
    case KEY_HOME: self = .home
    case KEY_END: self = .end
    case KEY_ENTER: self = .enter
    case KEY_BTAB: self = .backTab
    case KEY_BACKSPACE: self = .backspace
    default: return nil
    }
  }

  /// The key for a character from `get_wch` (it returned `OK`), or nil for a control character
  /// with no meaning here.
  init?(cursesCharacter value: UInt32) {
    switch value {
    case 0x0D, 0x0A: self = .enter
    case 0x1B: self = .escape
    case 0x09: self = .tab
    case 0x7F, 0x08: self = .backspace
    case 0..<0x20, 0x80..<0xA0: return nil
    default:
      guard let scalar = Unicode.Scalar(value) else { return nil }
      self = .character(Character(scalar))
    }
  }
}
