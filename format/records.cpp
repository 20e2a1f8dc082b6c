#include "format/records.h"

#include "format/encoding.h"
#include "format/record_codec.h"

namespace cprof::format {
namespace {

void put_frames(Encoder& e, const std::vector<uint64_t>& v) {
  // Frames of one stack lie close together: deltas from the previous frame keep them short.
  e.varint(v.size());
  uint64_t prev = 0;
  for (uint64_t x : v) {
    e.svarint(static_cast<int64_t>(x - prev));
    prev = x;
  }
}

std::vector<uint64_t> get_frames(Decoder& d) {
  std::vector<uint64_t> v(d.count(1));
  uint64_t prev = 0;
  for (auto& x : v) {
    x = prev + static_cast<uint64_t>(d.svarint());
    prev = x;
  }
  return v;
}

void encode_payload(const ProcessRecord& r, Encoder& e) {
  e.svarint(r.pid);
  e.svarint(r.ppid);
  e.svarint(r.rank);
  e.str(r.hostname);
  e.str(r.executable);
  e.varint(r.command_line.size());
  for (const auto& a : r.command_line) e.str(a);
  e.varint(r.start_realtime_ns);
  e.varint(r.start_monotonic_ns);
  e.str(r.engine);
  e.str(r.clock);
  e.str(r.unwinder);
  e.f64(r.frequency_hz);
  e.varint(r.period_ns);
}

void encode_payload(const ModuleRecord& r, Encoder& e) {
  e.varint(r.id);
  e.str(r.path);
  e.str(r.build_id);
  e.varint(r.load_bias);
  e.varint(r.start);
  e.varint(r.end);
  e.varint(r.time_ns);
}

void encode_payload(const ThreadRecord& r, Encoder& e) {
  e.svarint(r.tid);
  e.str(r.name);
  e.varint(r.time_ns);
  e.u8(r.existed_before_start ? 1 : 0);
}

void encode_payload(const ThreadEndRecord& r, Encoder& e) {
  e.svarint(r.tid);
  e.varint(r.time_ns);
  e.varint(r.cpu_time_ns);
  e.varint(r.samples);
  e.varint(r.dropped_samples);
}

void encode_payload(const ThreadNameRecord& r, Encoder& e) {
  e.svarint(r.tid);
  e.varint(r.time_ns);
  e.str(r.name);
}

void encode_payload(const EventRecord& r, Encoder& e) {
  e.varint(r.index);
  e.str(r.name);
  e.str(r.canonical_name);
  e.u8(static_cast<uint8_t>(r.status));
  e.str(r.detail);
}

void encode_payload(const SampleRecord& r, Encoder& e) {
  e.svarint(r.tid);
  e.varint(r.time_ns);
  e.varint(r.weight_ns);
  e.u8(static_cast<uint8_t>(static_cast<uint8_t>(r.clock) | (r.truncated ? 0x80 : 0)));
  put_frames(e, r.frames);
  e.varint(r.counter_deltas.size());
  for (uint64_t c : r.counter_deltas) e.varint(c);
}

void encode_payload(const MetricRecord& r, Encoder& e) {
  for (uint64_t v : {r.time_ns, r.rss_bytes, r.cpu_user_ns, r.cpu_system_ns, r.minor_faults,
                     r.major_faults, r.voluntary_switches, r.involuntary_switches, r.threads,
                     r.cpu_frequency_khz}) {
    e.varint(v);
  }
}

void encode_payload(const MessageRecord& r, Encoder& e) {
  e.varint(r.time_ns);
  e.u8(static_cast<uint8_t>(r.level));
  e.str(r.text);
}

void encode_payload(const ExperimentRecord& r, Encoder& e) {
  e.varint(r.time_ns);
  e.str(r.location);
  e.varint(r.location_id);
  e.f64(r.speedup);
  e.varint(r.duration_ns);
  e.varint(r.delay_ns);
  e.varint(r.period_ns);
  e.varint(r.selected_samples);
  e.u8(static_cast<uint8_t>(r.mode));
  e.varint(r.progress.size());
  for (const auto& p : r.progress) {
    e.str(p.name);
    e.varint(p.visits);
    e.varint(p.begin);
    e.varint(p.end);
    e.f64(p.mean_in_flight);
  }
}

void encode_payload(const ProgressPointRecord& r, Encoder& e) {
  e.varint(r.id);
  e.str(r.name);
  e.u8(static_cast<uint8_t>(r.kind));
  e.u8(static_cast<uint8_t>(r.source));
  e.str(r.file);
  e.varint(r.line);
  e.varint(r.time_ns);
}

void encode_payload(const RegionRecord& r, Encoder& e) {
  e.str(r.name);
  e.varint(r.time_ns);
  e.varint(r.count);
  e.f64(r.mean_ns);
  e.f64(r.stddev_ns);
  e.varint(r.min_ns);
  e.varint(r.max_ns);
  e.varint(r.dropped);
}

void encode_payload(const RegionSpansRecord& r, Encoder& e) {
  // Begins as signed deltas from the previous span's (spans arrive in about end order,
  // so a begin may go back a little) and durations instead of ends: a few bytes a call.
  e.varint(r.point_id);
  e.str(r.name);
  e.varint(r.spans.size());
  uint64_t prev = 0;
  for (const RegionSpan& s : r.spans) {
    e.svarint(s.tid);
    e.svarint(static_cast<int64_t>(s.begin_ns - prev));
    e.varint(s.end_ns > s.begin_ns ? s.end_ns - s.begin_ns : 0);
    prev = s.begin_ns;
  }
}

void encode_payload(const KernelRecord& r, Encoder& e) {
  e.varint(r.time_ns);
  e.varint(r.start_ns);
  e.varint(r.end_ns);
  e.varint(r.device_id);
  e.varint(r.queue_id);
  e.str(r.name);
  e.varint(r.dispatch_id);
  for (uint32_t v : r.grid) e.varint(v);
  for (uint32_t v : r.workgroup) e.varint(v);
  e.svarint(r.tid);
  put_frames(e, r.frames);
  e.varint(r.correlation_id);
}

void encode_payload(const CopyRecord& r, Encoder& e) {
  e.varint(r.time_ns);
  e.varint(r.start_ns);
  e.varint(r.end_ns);
  e.varint(r.bytes);
  e.u8(static_cast<uint8_t>(r.direction));
  e.varint(r.src_device_id);
  e.varint(r.dst_device_id);
  e.svarint(r.tid);
  put_frames(e, r.frames);
  e.varint(r.correlation_id);
}

void encode_payload(const GpuDeviceRecord& r, Encoder& e) {
  e.varint(r.id);
  e.str(r.name);
  e.u8(static_cast<uint8_t>(r.kind));
}

void encode_payload(const GpuTraceWindowRecord& r, Encoder& e) {
  e.varint(r.start_ns);
  e.varint(r.end_ns);
  e.f64(r.duty);
  e.varint(r.period_ns);
}

template <typename T>
constexpr RecordType type_of();
template <> constexpr RecordType type_of<ProcessRecord>() { return RecordType::process; }
template <> constexpr RecordType type_of<ModuleRecord>() { return RecordType::module; }
template <> constexpr RecordType type_of<ThreadRecord>() { return RecordType::thread; }
template <> constexpr RecordType type_of<ThreadEndRecord>() { return RecordType::thread_end; }
template <> constexpr RecordType type_of<ThreadNameRecord>() { return RecordType::thread_name; }
template <> constexpr RecordType type_of<EventRecord>() { return RecordType::event; }
template <> constexpr RecordType type_of<SampleRecord>() { return RecordType::sample; }
template <> constexpr RecordType type_of<MetricRecord>() { return RecordType::metric; }
template <> constexpr RecordType type_of<MessageRecord>() { return RecordType::message; }
template <> constexpr RecordType type_of<ExperimentRecord>() { return RecordType::experiment; }
template <> constexpr RecordType type_of<ProgressPointRecord>() {
  return RecordType::progress_point;
}
template <> constexpr RecordType type_of<RegionRecord>() { return RecordType::region; }
template <> constexpr RecordType type_of<KernelRecord>() { return RecordType::kernel; }
template <> constexpr RecordType type_of<CopyRecord>() { return RecordType::gpu_copy; }
template <> constexpr RecordType type_of<GpuDeviceRecord>() { return RecordType::gpu_device; }
template <> constexpr RecordType type_of<RegionSpansRecord>() { return RecordType::region_spans; }
template <> constexpr RecordType type_of<GpuTraceWindowRecord>() {
  return RecordType::gpu_trace_window;
}

}  // namespace

void encode_record(const Record& record, std::vector<uint8_t>& out) {
  // The payload is encoded in place and its length put in front afterwards: no scratch
  // buffer, which as a thread_local would already be destroyed when the runtime writes
  // its last records from a library destructor at exit.
  Encoder e(out);
  RecordType type{};
  std::visit([&](const auto& r) { type = type_of<std::decay_t<decltype(r)>>(); }, record);
  e.varint(static_cast<uint32_t>(type));
  const size_t payload_start = out.size();
  std::visit([&](const auto& r) { encode_payload(r, e); }, record);
  uint8_t length[10];
  size_t n = 0;
  for (uint64_t v = out.size() - payload_start; ; v >>= 7) {
    length[n++] = static_cast<uint8_t>(v >= 0x80 ? (v & 0x7f) | 0x80 : v);
    if (v < 0x80) break;
  }
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(payload_start), length, length + n);
}

std::optional<Record> decode_record(uint32_t type, std::span<const uint8_t> payload) {
  Decoder d(payload);
  Record out;
  switch (static_cast<RecordType>(type)) {
    case RecordType::process: {
      ProcessRecord r;
      r.pid = d.svarint();
      r.ppid = d.svarint();
      r.rank = d.svarint();
      r.hostname = d.str();
      r.executable = d.str();
      r.command_line.resize(d.count(1));
      for (auto& a : r.command_line) a = d.str();
      r.start_realtime_ns = d.varint();
      r.start_monotonic_ns = d.varint();
      r.engine = d.str();
      r.clock = d.str();
      r.unwinder = d.str();
      r.frequency_hz = d.f64();
      r.period_ns = d.varint();
      out = std::move(r);
      break;
    }
    case RecordType::module: {
      ModuleRecord r;
      r.id = static_cast<uint32_t>(d.varint());
      r.path = d.str();
      r.build_id = d.str();
      r.load_bias = d.varint();
      r.start = d.varint();
      r.end = d.varint();
      r.time_ns = d.varint();
      out = std::move(r);
      break;
    }
    case RecordType::thread: {
      ThreadRecord r;
      r.tid = d.svarint();
      r.name = d.str();
      r.time_ns = d.varint();
      r.existed_before_start = d.u8() != 0;
      out = std::move(r);
      break;
    }
    case RecordType::thread_end: {
      ThreadEndRecord r;
      r.tid = d.svarint();
      r.time_ns = d.varint();
      r.cpu_time_ns = d.varint();
      r.samples = d.varint();
      r.dropped_samples = d.varint();
      out = r;
      break;
    }
    case RecordType::thread_name: {
      ThreadNameRecord r;
      r.tid = d.svarint();
      r.time_ns = d.varint();
      r.name = d.str();
      out = std::move(r);
      break;
    }
    case RecordType::event: {
      EventRecord r;
      r.index = static_cast<uint32_t>(d.varint());
      r.name = d.str();
      r.canonical_name = d.str();
      const uint8_t status = d.u8();
      if (status > static_cast<uint8_t>(EventStatus::counted_zero)) return std::nullopt;
      r.status = static_cast<EventStatus>(status);
      r.detail = d.str();
      out = std::move(r);
      break;
    }
    case RecordType::sample: {
      SampleRecord r;
      r.tid = d.svarint();
      r.time_ns = d.varint();
      r.weight_ns = d.varint();
      const uint8_t flags = d.u8();
      r.clock = static_cast<SampleClock>(flags & 0x7f);
      r.truncated = (flags & 0x80) != 0;
      if (r.clock != SampleClock::cpu && r.clock != SampleClock::wall) return std::nullopt;
      r.frames = get_frames(d);
      r.counter_deltas.resize(d.count(1));
      for (auto& c : r.counter_deltas) c = d.varint();
      out = std::move(r);
      break;
    }
    case RecordType::metric: {
      MetricRecord r;
      for (uint64_t* v : {&r.time_ns, &r.rss_bytes, &r.cpu_user_ns, &r.cpu_system_ns,
                          &r.minor_faults, &r.major_faults, &r.voluntary_switches,
                          &r.involuntary_switches, &r.threads, &r.cpu_frequency_khz}) {
        *v = d.varint();
      }
      out = r;
      break;
    }
    case RecordType::message: {
      MessageRecord r;
      r.time_ns = d.varint();
      const uint8_t level = d.u8();
      if (level > static_cast<uint8_t>(MessageLevel::error)) return std::nullopt;
      r.level = static_cast<MessageLevel>(level);
      r.text = d.str();
      out = std::move(r);
      break;
    }
    case RecordType::experiment: {
      ExperimentRecord r;
      r.time_ns = d.varint();
      r.location = d.str();
      r.location_id = d.varint();
      r.speedup = d.f64();
      r.duration_ns = d.varint();
      r.delay_ns = d.varint();
      r.period_ns = d.varint();
      r.selected_samples = d.varint();
      const uint8_t mode = d.u8();
      if (mode > static_cast<uint8_t>(ExperimentMode::end_to_end)) return std::nullopt;
      r.mode = static_cast<ExperimentMode>(mode);
      r.progress.resize(d.count(12));  // empty name, three 1-byte varints, an f64
      for (auto& p : r.progress) {
        p.name = d.str();
        p.visits = d.varint();
        p.begin = d.varint();
        p.end = d.varint();
        p.mean_in_flight = d.f64();
      }
      out = std::move(r);
      break;
    }
    case RecordType::progress_point: {
      ProgressPointRecord r;
      r.id = static_cast<uint32_t>(d.varint());
      r.name = d.str();
      const uint8_t kind = d.u8();
      const uint8_t source = d.u8();
      if (kind > static_cast<uint8_t>(ProgressPointKind::latency) ||
          source > static_cast<uint8_t>(ProgressPointSource::breakpoint)) {
        return std::nullopt;
      }
      r.kind = static_cast<ProgressPointKind>(kind);
      r.source = static_cast<ProgressPointSource>(source);
      r.file = d.str();
      r.line = static_cast<uint32_t>(d.varint());
      r.time_ns = d.varint();
      out = std::move(r);
      break;
    }
    case RecordType::region: {
      RegionRecord r;
      r.name = d.str();
      r.time_ns = d.varint();
      r.count = d.varint();
      r.mean_ns = d.f64();
      r.stddev_ns = d.f64();
      r.min_ns = d.varint();
      r.max_ns = d.varint();
      r.dropped = d.varint();
      out = std::move(r);
      break;
    }
    case RecordType::region_spans: {
      RegionSpansRecord r;
      r.point_id = static_cast<uint32_t>(d.varint());
      r.name = d.str();
      r.spans.resize(d.count(3));  // three 1-byte varints at least
      uint64_t prev = 0;
      for (RegionSpan& s : r.spans) {
        s.tid = d.svarint();
        s.begin_ns = prev + static_cast<uint64_t>(d.svarint());
        s.end_ns = s.begin_ns + d.varint();
        prev = s.begin_ns;
      }
      out = std::move(r);
      break;
    }
    case RecordType::kernel: {
      KernelRecord r;
      r.time_ns = d.varint();
      r.start_ns = d.varint();
      r.end_ns = d.varint();
      r.device_id = static_cast<uint32_t>(d.varint());
      r.queue_id = d.varint();
      r.name = d.str();
      r.dispatch_id = d.varint();
      for (uint32_t& v : r.grid) v = static_cast<uint32_t>(d.varint());
      for (uint32_t& v : r.workgroup) v = static_cast<uint32_t>(d.varint());
      r.tid = d.svarint();
      r.frames = get_frames(d);
      r.correlation_id = d.varint();
      out = std::move(r);
      break;
    }
    case RecordType::gpu_copy: {
      CopyRecord r;
      r.time_ns = d.varint();
      r.start_ns = d.varint();
      r.end_ns = d.varint();
      r.bytes = d.varint();
      const uint8_t direction = d.u8();
      if (direction > static_cast<uint8_t>(CopyDirection::host_to_host)) return std::nullopt;
      r.direction = static_cast<CopyDirection>(direction);
      r.src_device_id = static_cast<uint32_t>(d.varint());
      r.dst_device_id = static_cast<uint32_t>(d.varint());
      r.tid = d.svarint();
      r.frames = get_frames(d);
      r.correlation_id = d.varint();
      out = std::move(r);
      break;
    }
    case RecordType::gpu_device: {
      GpuDeviceRecord r;
      r.id = static_cast<uint32_t>(d.varint());
      r.name = d.str();
      const uint8_t kind = d.u8();
      if (kind > static_cast<uint8_t>(GpuDeviceKind::other)) return std::nullopt;
      r.kind = static_cast<GpuDeviceKind>(kind);
      out = std::move(r);
      break;
    }
    case RecordType::gpu_trace_window: {
      GpuTraceWindowRecord r;
      r.start_ns = d.varint();
      r.end_ns = d.varint();
      r.duty = d.f64();
      r.period_ns = d.varint();
      if (r.end_ns < r.start_ns || !(r.duty > 0 && r.duty <= 1)) return std::nullopt;
      out = r;
      break;
    }
    default:
      return std::nullopt;
  }
  if (!d.ok()) return std::nullopt;
  return out;
}

}  // namespace cprof::format
