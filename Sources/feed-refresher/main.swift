// A program written without Chronoscope, as most are: a feed refresher that fetches stories with
// Swift concurrency, decodes thumbnails on an OperationQueue, saves to a serial database queue,
// refreshes on a Dispatch timer and updates its "screen" on the main actor.
//
// It has a timing bug its author did not see: the screen's refresh reads the database with
// `database.sync` from the main queue while a slow save holds that queue, so the main thread
// hangs for as long as the save takes. `chronoscope record -- feed-refresher` then
// `chronoscope check` finds it (a main-thread hang) without a line of this file changed.

import Dispatch

FeedRefresher.run(Screen())
dispatchMain()
