// The part of ncursesw that Swift cannot import directly.
//
// No pkgConfig on the target: SwiftPM drops ncursesw's `-D_XOPEN_SOURCE` flags (with a warning),
// so the wide-character API is switched on here instead, before <curses.h> is read.
#ifndef CNCURSESW_SHIM_H
#define CNCURSESW_SHIM_H

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <stdio.h>

// Attribute macros are built with NCURSES_BITS, which Swift does not import.
static inline attr_t cncursesw_a_normal(void) { return A_NORMAL; }
static inline attr_t cncursesw_a_bold(void) { return A_BOLD; }
static inline attr_t cncursesw_a_reverse(void) { return A_REVERSE; }
static inline attr_t cncursesw_a_dim(void) { return A_DIM; }
static inline attr_t cncursesw_a_underline(void) { return A_UNDERLINE; }

// In Swift 6 mode the mutable C globals are "not concurrency-safe"; read them through functions.
static inline WINDOW *cncursesw_stdscr(void) { return stdscr; }
static inline int cncursesw_lines(void) { return LINES; }
static inline int cncursesw_cols(void) { return COLS; }
static inline int cncursesw_color_pairs(void) { return COLOR_PAIRS; }

// `getmaxyx` is a macro that assigns to its arguments.
static inline void cncursesw_getmaxyx(WINDOW *window, int *rows, int *columns) {
  int y = 0, x = 0;
  getmaxyx(window, y, x);
  *rows = y;
  *columns = x;
}

// The mouse masks are built with NCURSES_MOUSE_MASK, which Swift does not import. Buttons 4 and
// 5 are the wheel (mouse version 2).
static inline mmask_t cncursesw_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t cncursesw_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t cncursesw_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline mmask_t cncursesw_button_shift(void) { return BUTTON_SHIFT; }
static inline mmask_t cncursesw_button_ctrl(void) { return BUTTON_CTRL; }
static inline mmask_t cncursesw_button_alt(void) { return BUTTON_ALT; }

// `initscr` exits the process when the terminal cannot be set up; `newterm` reports it instead.
// `stdin`/`stdout` are C globals Swift 6 refuses to read.
static inline SCREEN *cncursesw_newterm(void) { return newterm(NULL, stdout, stdin); }

#endif
