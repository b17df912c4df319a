@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeReplayTesting
import ChronoscopeTestSupport
import Testing

/// The replay under Swift Testing, whose tests run in parallel in one process: each replay has
/// its own clock, so parallel replays of one schedule do not meet.
@Suite struct ReplaySwiftTestingTests {
  @Test(arguments: [StaleResponseSearch.Variant.showsEveryResponse, .cancelsStaleRequests])
  func theRecordedRaceReplaysTheSameWayEachTime(_ variant: StaleResponseSearch.Variant) throws {
    let schedule = try RecordedSchedule(contentsOf: Recordings.path("stale-response"))
    for _ in 0..<100 {
      let replay = ReplayingSchedulerFactory(replaying: schedule)
      let search = StaleResponseSearch(factory: replay, variant: variant)
      search.type(["a", "b"], gap: .milliseconds(3))
      switch variant {
      case .showsEveryResponse:
        try replay.run()
        #expect(search.shownQuery == "a")
      case .cancelsStaleRequests:
        let error = #expect(throws: ReplayError.self) { try replay.run() }
        #expect(error?.divergence?.position == 5)
        #expect(error?.divergence?.replayed == nil)
      }
    }
  }
}
