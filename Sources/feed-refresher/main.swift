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
  // SIGINT is blocked and taken with sigwait, not by a Dispatch signal source: `dispatchMain`
  // parks the main thread in `sigsuspend` with nothing blocked, so an ignored SIGINT that came
  // then was thrown away before the source saw it (half the time when sent at once).
  var interrupt = sigset_t()
  sigemptyset(&interrupt)
  sigaddset(&interrupt, SIGINT)
  pthread_sigmask(SIG_BLOCK, &interrupt, nil)
  say("press Ctrl-C")
  var taken: Int32 = 0
  while sigwait(&interrupt, &taken) != 0 {}
  var count = 1
  let end = DispatchTime.now() + .seconds(1)
  while case let now = DispatchTime.now(), now < end {
    let left = end.uptimeNanoseconds - now.uptimeNanoseconds
    var wait = timespec(tv_sec: Int(left / 1_000_000_000), tv_nsec: Int(left % 1_000_000_000))
    if sigtimedwait(&interrupt, nil, &wait) == SIGINT { count += 1 }
  }
  say("interrupts: \(count)")
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
