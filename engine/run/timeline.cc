#include "engine/run/timeline.hh"

#include <fmt/format.h>

#include <algorithm>

#include "engine/count_mode.hh"
#include "engine/report/interval_sink.hh"
#include "engine/report/live_line.hh"
#include "engine/report/log.hh"
#include "engine/run/stream_figures.hh"

namespace xttcp {

namespace {

using Seconds = std::chrono::duration<double>;

SteadyClock::duration to_duration(double s) {
  return std::chrono::duration_cast<SteadyClock::duration>(Seconds(s));
}

// Everything read at one edge of a window or a -sam sample.
struct EdgeSnapshots {
  std::vector<CounterSnapshot> counters;
  std::vector<udp::FlowRecord> udp;
  SystemSnapshot system;
  std::optional<DeviceSnapshot> device;
};

}  // namespace

// One run of the phases: its edges, where it stands, the interval sample and the -sam sample
// being measured, and the window it fills. Each step is a member; run() is the loop.
class Timeline::Run {
 public:
  Run(Timeline& timeline, const Phases& phases, SteadyClock::time_point start)
      : t_(timeline),
        phases_(phases),
        continuous_(phases.duration_s == 0),
        sampling_(phases.sample_s > 0 && !continuous_),
        udp_run_(timeline.pool_.is_udp()),
        start_(start),
        measure_begin_(start + std::chrono::seconds(phases.warmup_s)),
        measure_end_(measure_begin_ + std::chrono::seconds(phases.duration_s)),
        cycle_end_(start + std::chrono::seconds(
                               std::max(phases.cycle_s, phases.warmup_s + phases.duration_s))),
        interval_(std::max(to_duration(timeline.interval_s_),
                           SteadyClock::duration(std::chrono::milliseconds(1)))),
        window_start_(measure_begin_),
        sample_start_(start),
        sample_bytes_(timeline.pool_.total_bytes()),
        sample_operations_(timeline.pool_.total_operations()),
        sample_flows_(timeline.per_stream_ ? timeline.pool_.flow_counts()
                                           : std::vector<CounterSnapshot>{}),
        sample_udp_(timeline.pool_.udp_snapshot()),
        sample_open_(start),
        live_progress_(timeline.pool_.spec().defaults != Defaults::ntttcp),
        live_rr_(timeline.pool_.spec().rr.on && timeline.says_anything() &&
                 timeline.log_.shows_realtime()),
        count_mode_(count_mode(timeline.pool_.spec())) {
    if (live_rr_ && t_.pool_.role() == Role::sender) sample_rr_ = t_.pool_.rr_total();
  }

  MeasuredWindow run() {
    if (phases_.warmup_s == 0) open_window(start_);
    auto tick = start_ + interval_;
    for (;;) {
      const auto measure_edge = sampling_ ? next_sample_edge() : measure_end_;
      SteadyClock::time_point edge = stage_ == Stage::warmup    ? measure_begin_
                                     : stage_ == Stage::measure ? measure_edge
                                                                : cycle_end_;
      if (continuous_) edge = SteadyClock::time_point::max();
      const bool at_edge = edge <= tick;
      const SteadyClock::time_point target = at_edge ? edge : tick;
      const bool on_time = t_.clock_.wait_until(target);
      const auto now = SteadyClock::now();
      if (stage_ == Stage::measure && !continuous_) count_lateness(target, now);

      if (!on_time && t_.clock_.finished() && !t_.clock_.cancelled()) {  // count mode: all done
        if (stage_ == Stage::measure) close_window(now, false);
        say(t_.clock_.reason().message);
        break;
      }
      if (!on_time) {  // cancelled: close the window here if it was open
        // A cancel that came once the window's end had passed (the peer's 'E' as its own
        // window ended, while this thread was still to wake on a loaded host) cut nothing.
        if (stage_ == Stage::measure && !continuous_) close_window(now, now < measure_end_);
        break;
      }
      if (!at_edge) {  // an interval: real-time line, sample, and the peer watch
        close_sample(now, true);
        if (t_.watch_ && (stage_ != Stage::cooldown || t_.watch_in_cooldown_))
          if (std::optional<StopReason> lost = t_.watch_())
            t_.clock_.cancel(lost->cause, lost->message);
        tick += interval_;
        if (tick <= now) tick = now + interval_;  // fell behind (a slow machine): skip, never burst
        continue;
      }
      if (stage_ == Stage::measure &&
          edge < measure_end_) {  // -sam: one sample ends, the next begins
        split_sample(now);
        continue;  // the interval ticks go on as they were
      }
      if (stage_ == Stage::warmup) {
        say("Test warmup completed.");
        if (now > measure_begin_) {
          measure_end_ += now - measure_begin_;
          cycle_end_ += now - measure_begin_;
        }
        close_sample(now, false);
        open_window(now);
      } else if (stage_ == Stage::measure) {
        close_window(now, false);
        if (cycle_end_ > now + std::chrono::milliseconds(1)) say("Test cooldown is in progress...");
      } else {
        break;
      }
      tick = now + interval_;  // samples line up with the phase that just began
    }
    if (t_.says_anything()) t_.log_.end_realtime();
    say("Test cycle finished.");
    window_.stop = t_.clock_.reason();
    return std::move(window_);
  }

 private:
  enum class Stage { warmup, measure, cooldown };

  void say(const std::string& line) {
    if (t_.says_anything()) t_.log_.info(line);
  }

  // The interval sample ends at `now` (printed as a real-time line if `print`); in the window it
  // is kept, and the next one begins.
  void close_sample(SteadyClock::time_point now, bool print) {
    // Per stream: every slot's counts, and the sums from them (the [SUM] is its streams' sum).
    std::vector<CounterSnapshot> slots;
    if (t_.per_stream_) slots = t_.pool_.flow_counts();
    const uint64_t bytes = t_.per_stream_ ? sum_bytes(slots) : t_.pool_.total_bytes();
    std::optional<std::vector<ConnectionWatch::Reading>> readings = read_connections();
    if (live_rr_ && t_.pool_.role() == Role::sender) rr_now_ = t_.pool_.rr_total();
    const uint64_t operations =
        t_.per_stream_ ? sum_operations(slots) : t_.pool_.total_operations();
    const double length = Seconds(now - sample_start_).count();
    std::vector<udp::FlowRecord> flows;
    if (udp_run_) flows = t_.pool_.udp_snapshot();
    if (length > 0) {
      if (print && t_.says_anything() && t_.log_.shows_realtime())
        t_.log_.realtime(live_line(live_figures(bytes, operations, length), progress(now)));
      // The warm-up's intervals go only to the sinks that print them marked omitted (iperf3's
      // -O rows), timed from the test's start as 3.12 times them; they are in no window.
      const bool measuring = stage_ == Stage::measure;
      const bool omitted = stage_ == Stage::warmup && t_.omitted_sinks_;
      if (measuring || omitted) {
        IntervalSample sample{Seconds(sample_start_ - (measuring ? window_start_ : start_)).count(),
                              length, bytes - sample_bytes_};
        sample.omitted = omitted;
        sample.operations = operations - sample_operations_;
        if (t_.count_streams_)
          sample.streams = t_.count_streams_();
        else if (udp_run_)
          sample.streams = static_cast<uint32_t>(flows.size());
        else
          sample.streams = static_cast<uint32_t>(std::max<int64_t>(t_.pool_.open_connections(), 0));
        std::vector<udp::FlowRecord> udp_delta;
        if (udp_run_) {
          udp_delta = udp::delta(flows, sample_udp_);
          const udp::UdpFlowSnapshot d = udp::sum(udp_delta);
          sample.datagrams = d.datagrams;
          sample.lost = d.lost();
          sample.reordered = d.reordered;
          sample.jitter_ns = d.jitter_ns;
        }
        if (readings) sample.connections = interval_figures(readings_, *readings, t_.pool_.role());
        if (t_.per_stream_ && udp_run_) announce_udp_streams();
        if (t_.per_stream_)
          sample.per_stream =
              stream_figures({t_.pool_.role(), udp_run_, &sample_flows_, &slots, &udp_delta,
                              &readings_, readings ? &*readings : nullptr, &sample.connections,
                              t_.pool_.counts_reads(), t_.pool_.spec().layout.one_port});
        if (measuring) {
          window_.intervals.push_back(sample);
          // Each stream's share is for the sinks; the result keeps it for as many streams as it
          // keeps connections' figures (limits::watched_connections), not for thousands.
          if (sample.per_stream.size() > limits::watched_connections)
            window_.intervals.back().per_stream.clear();
        }
        for (IntervalSink* sink : t_.sinks_)
          if (measuring || sink->wants_omitted())
            sink->interval(t_.sink_role_, window_.started_at, sample, udp_run_);
      }
    }
    sample_start_ = now;
    sample_bytes_ = bytes;
    sample_operations_ = operations;
    if (live_rr_ && t_.pool_.role() == Role::sender) std::swap(sample_rr_, rr_now_);
    if (t_.per_stream_) sample_flows_ = std::move(slots);
    if (udp_run_) sample_udp_ = std::move(flows);
    if (readings) readings_ = std::move(*readings);
  }
  // The live line's figures for the interval that ends: bits, or --rr's transactions and (a
  // requester's) round trips since the last line (rr_now_: read as the interval ended).
  LiveFigures live_figures(uint64_t bytes, uint64_t operations, double length) {
    LiveFigures f;
    f.bits_per_second = static_cast<double>(bytes - sample_bytes_) * 8.0 / length;
    if (!live_rr_) return f;
    LiveTransactions rr;
    rr.per_second = static_cast<double>(operations - sample_operations_) / length;
    rr.requester = t_.pool_.role() == Role::sender;
    if (rr.requester) {
      const HistogramCounts interval = rr_now_.minus(sample_rr_);
      rr.round_trips = interval.count;
      rr.p50_ns = interval.percentile(0.50);
      rr.p99_ns = interval.percentile(0.99);
    }
    f.rr = rr;
    return f;
  }
  // Where the test stands at `now`, for the live line; nothing under the original's name, whose
  // line is the original's.
  std::optional<LiveProgress> progress(SteadyClock::time_point now) const {
    if (!live_progress_) return std::nullopt;
    LiveProgress p;
    if (continuous_) {
      p.elapsed_s = Seconds(now - start_).count();
      p.until = "until stopped";
      return p;
    }
    switch (stage_) {
      case Stage::warmup:
        p.phase = LiveProgress::Phase::warmup;
        p.elapsed_s = Seconds(now - start_).count();
        p.length_s = phases_.warmup_s;
        break;
      case Stage::measure:
        p.elapsed_s = Seconds(now - window_start_).count();
        p.length_s = count_mode_ ? 0 : phases_.duration_s;
        break;
      case Stage::cooldown: p.phase = LiveProgress::Phase::cooldown; break;
    }
    if (!count_mode_)
      p.left_s = Seconds(cycle_end_ - now).count();
    else
      p.until = t_.pool_.role() == Role::sender ? "until every buffer is sent"
                                                : "until the senders are done";
    return p;
  }

  static uint64_t sum_bytes(const std::vector<CounterSnapshot>& slots) {
    uint64_t sum = 0;
    for (const CounterSnapshot& s : slots) sum += s.bytes;
    return sum;
  }
  static uint64_t sum_operations(const std::vector<CounterSnapshot>& slots) {
    uint64_t sum = 0;
    for (const CounterSnapshot& s : slots) sum += s.operations;
    return sum;
  }

  // A UDP receiver's streams its workers named since the last interval, to the sinks.
  void announce_udp_streams() {
    if (t_.pool_.role() != Role::receiver) return;
    const std::vector<udp::FlowEnds> named = t_.pool_.udp_flow_ends();
    for (; udp_streams_announced_ < named.size(); ++udp_streams_announced_) {
      const udp::FlowEnds& f = named[udp_streams_announced_];
      for (IntervalSink* sink : t_.sinks_) sink->stream_began(f.flow_id, {f.local, f.remote});
    }
  }

  // TCP: every watched connection's TCP_INFO now (nullopt: no watch); the addresses of the
  // ones not seen before go into the window's list.
  std::optional<std::vector<ConnectionWatch::Reading>> read_connections() {
    ConnectionWatch* watch = t_.pool_.connection_watch();
    if (watch == nullptr) return std::nullopt;
    std::vector<ConnectionWatch::Reading> readings = watch->read(t_.next_new_connection_);
    for (ConnectionWatch::Reading& r : readings)
      if (r.who) {
        if (t_.pool_.role() == Role::receiver)
          for (IntervalSink* sink : t_.sinks_)
            sink->stream_began(r.id, {r.who->local, r.who->remote});
        window_.watched.push_back(std::move(*r.who));
        r.who.reset();
        t_.next_new_connection_ = r.id + 1;
      }
    return readings;
  }

  // -sam: the next sample begins samples_begun x sample_s after the window's start (the last
  // one at the window's end).
  SteadyClock::time_point next_sample_edge() const {
    return std::min(window_start_ + std::chrono::seconds(phases_.sample_s) * samples_begun_,
                    measure_end_);
  }
  void begin_sample(SteadyClock::time_point now, const EdgeSnapshots& edge) {
    current_sample_ = MeasuredWindow{};
    current_sample_.begin = edge.counters;
    current_sample_.udp_begin = edge.udp;
    current_sample_.system_begin = edge.system;
    current_sample_.device_begin = edge.device;
    current_sample_.started_at = std::chrono::system_clock::now();
    sample_open_ = now;
    ++samples_begun_;
  }
  void end_sample(SteadyClock::time_point now, const EdgeSnapshots& edge, bool cut_short) {
    current_sample_.end = edge.counters;
    current_sample_.udp_end = edge.udp;
    current_sample_.system_end = edge.system;
    current_sample_.device_end = edge.device;
    current_sample_.seconds = Seconds(now - sample_open_).count();
    current_sample_.cut_short = cut_short;
    current_sample_.measured = true;
    window_.samples.push_back(std::move(current_sample_));
  }
  void split_sample(SteadyClock::time_point now) {
    const EdgeSnapshots edge{t_.pool_.snapshot(), t_.pool_.udp_snapshot(), t_.probe_.take(),
                             t_.pool_.device_snapshot()};
    end_sample(now, edge, false);
    begin_sample(now, edge);
  }

  void open_window(SteadyClock::time_point now) {
    window_.begin = t_.pool_.snapshot();
    const bool from_earlier = t_.begin_from_ && phases_.warmup_s == 0;
    if (from_earlier) window_.begin = std::move(*t_.begin_from_);
    t_.begin_from_.reset();
    // Counts taken before the workers were released: no round trip was timed by then.
    if (!from_earlier) window_.rr_begin = t_.pool_.rr_snapshot();
    window_.udp_begin = from_earlier && t_.begin_udp_from_ ? std::move(*t_.begin_udp_from_)
                                                           : t_.pool_.udp_snapshot();
    t_.begin_udp_from_.reset();
    if (auto readings = read_connections()) readings_ = std::move(*readings);
    window_.system_begin = t_.probe_.take();
    window_.device_begin = t_.pool_.device_snapshot();
    window_.started_at = std::chrono::system_clock::now();
    if (from_earlier && t_.begin_since_ && *t_.begin_since_ < now) {
      window_.started_at -=
          std::chrono::duration_cast<std::chrono::system_clock::duration>(now - *t_.begin_since_);
      now = *t_.begin_since_;
    }
    t_.begin_since_.reset();
    window_start_ = now;
    sample_start_ = now;
    sample_bytes_ = sum_bytes(window_.begin);
    sample_operations_ = sum_operations(window_.begin);
    if (t_.per_stream_) sample_flows_ = window_.begin;
    stage_ = Stage::measure;
    if (sampling_) {  // the window's begin is the first sample's
      begin_sample(now,
                   {window_.begin, window_.udp_begin, window_.system_begin, window_.device_begin});
      current_sample_.started_at = window_.started_at;
    }
  }
  // A wake that came late in the window: this process was not run for that long (a loaded or
  // paused host). Wakes that were all late at once (a tick, then the edge it hid) count once.
  void count_lateness(SteadyClock::time_point target, SteadyClock::time_point now) {
    const SteadyClock::time_point from = std::max(target, last_wake_);
    if (now > from) window_.late_s += Seconds(now - from).count();
    last_wake_ = now;
  }
  void close_window(SteadyClock::time_point now, bool cut_short) {
    close_sample(now, false);
    window_.end = t_.pool_.snapshot();
    window_.udp_end = t_.pool_.udp_snapshot();
    window_.rr_end = t_.pool_.rr_snapshot();
    window_.system_end = t_.probe_.take();
    window_.device_end = t_.pool_.device_snapshot();
    window_.seconds = Seconds(now - window_start_).count();
    window_.cut_short = cut_short;
    window_.measured = true;
    if (const ConnectionWatch* watch = t_.pool_.connection_watch())
      window_.not_watched = watch->not_watched_count() - not_watched_before_;
    if (sampling_)  // the window's end is the last sample's
      end_sample(now, {window_.end, window_.udp_end, window_.system_end, window_.device_end},
                 cut_short);
    stage_ = Stage::cooldown;
    if (t_.says_anything()) t_.log_.end_realtime();
    // Said as it happens, in place of NTTTCP's "Test run completed.", which an early end is not.
    if (cut_short)
      say(fmt::format("test was cut short after {:.2f} of {} s: {}", window_.seconds,
                      phases_.duration_s, t_.clock_.reason().message));
    else
      say("Test run completed.");
  }

  Timeline& t_;
  const Phases phases_;
  const bool continuous_;
  const bool sampling_;
  const bool udp_run_;
  const SteadyClock::time_point start_, measure_begin_;
  // Both move later by as much as the window opened late (a loaded machine woke this thread
  // after the warm-up's edge): the window keeps its full length, as the original's does.
  SteadyClock::time_point measure_end_, cycle_end_;
  const SteadyClock::duration interval_;
  MeasuredWindow window_;
  Stage stage_ = Stage::warmup;
  SteadyClock::time_point window_start_;
  // The current interval sample: from sample_start_, counting from sample_bytes_.
  SteadyClock::time_point sample_start_;
  uint64_t sample_bytes_;
  uint64_t sample_operations_;                 // send/receive calls, as sample_bytes_
  std::vector<CounterSnapshot> sample_flows_;  // per slot, when the sinks want streams
  std::size_t udp_streams_announced_ = 0;      // of the pool's named UDP flows
  std::vector<udp::FlowRecord> sample_udp_;
  // TCP: the watched connections as read at the current sample's start.
  std::vector<ConnectionWatch::Reading> readings_;
  const uint64_t not_watched_before_ =
      t_.pool_.connection_watch() ? t_.pool_.connection_watch()->not_watched_count() : 0;
  // -sam: the sample being measured, from sample_open_.
  MeasuredWindow current_sample_;
  SteadyClock::time_point sample_open_;
  SteadyClock::time_point last_wake_;  // count_lateness: when the clock last woke this thread
  int samples_begun_ = 0;
  // The live line: where the test stands (not under the original's name), --rr's figures (when
  // the line is shown) and count mode's open end.
  const bool live_progress_;
  const bool live_rr_;
  const bool count_mode_;
  // --rr requester: every flow's round trips at the current sample's start, and as last read.
  HistogramCounts sample_rr_, rr_now_;
};

void Timeline::begin_now() {
  begin_from(pool_.snapshot());
  begin_udp_from_ = pool_.udp_snapshot();
}

void Timeline::add_sink(IntervalSink* sink, Role role) {
  if (sink != nullptr) {
    sinks_.push_back(sink);
    per_stream_ = per_stream_ || sink->wants_streams();
    omitted_sinks_ = omitted_sinks_ || sink->wants_omitted();
  }
  sink_role_ = role;
}

MeasuredWindow Timeline::run(const Phases& phases, SteadyClock::time_point start) {
  return Run(*this, phases, start).run();
}

}  // namespace xttcp
