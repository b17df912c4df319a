// A program written without Chronoscope, as most are: a feed refresher that fetches stories with
// Swift concurrency, decodes thumbnails on an OperationQueue, saves to a serial database queue,
// refreshes on a Dispatch timer and updates its "screen" on the main actor.
//
// It has a timing bug its author did not see: the screen's refresh reads the database with
// `database.sync` from the main queue while a slow save holds that queue, so the main thread
// hangs for as long as the save takes. `chronoscope record -- feed-refresher` then
// `chronoscope check` finds it (a main-thread hang) without a line of this file changed.
//
// Two more ways to run it, for the tests of what `record` changes between a program and its
// terminal: `--echo-input` reads a line from the terminal and prints it; `--count-interrupts`
// counts the SIGINTs that arrive within a second of the first; `--hang` hangs, as a program
// stopped with Ctrl-C often has: the main thread waits for work it queued on the main queue.

import Dispatch
import Foundation

/// Prints `line` now, even into a pipe: a test waits for it before it acts.
func say(_ line: String) {
  print(line)
  fflush(nil)
}

switch CommandLine.arguments.dropFirst().first {
case "--echo-input":
  say("type a line")
  let line = DispatchQueue(label: "feed.input").sync { readLine() }
  say("read: \(line ?? "(end of input)")")
case "--count-interrupts":
  signal(SIGINT, SIG_IGN)
  let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
  nonisolated(unsafe) var count = 0
  interrupts.setEventHandler {
    count += 1
    guard count == 1 else { return }
    DispatchQueue.main.asyncAfter(deadline: .now() + .seconds(1)) {
      say("interrupts: \(count)")
      exit(0)
    }
  }
  interrupts.resume()
  say("press Ctrl-C")
  dispatchMain()
case "--hang":
  let done = DispatchGroup()
  done.enter()
  DispatchQueue.main.async { done.leave() }
  usleep(50_000)
  say("waiting")
  done.wait()
default:
  FeedRefresher.run(Screen())
  dispatchMain()
}
