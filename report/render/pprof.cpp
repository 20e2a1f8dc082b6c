// `--format pprof`: a gzipped profile.proto (github.com/google/pprof, proto/profile.proto),
// written with a small hand-rolled protobuf encoder -- the message is simple and this
// keeps libprotobuf out of the build. One Sample per (process, thread, distinct stack)
// with values [samples, cpu nanoseconds] and labels pid, process, tid, thread, rank (and
// one per group of CPU time no sample covers, [0, its nanoseconds], label unsampled);
// one Location per symbolized address (its inline chain as Lines, innermost first, as
// pprof expects); one Function per (module, name); one Mapping per module. Addresses are
// ELF addresses (the same binary in several processes shares its locations).
#include <zlib.h>

#include <string_view>
#include <unordered_map>

#include "format/utf8.h"
#include "report/render/cpu_account_note.h"
#include "report/render/render.h"
#include "report/render/string_table.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

// Protobuf wire format: varint (0) and length-delimited (2) fields only.
class ProtoWriter {
 public:
  void varint(uint64_t v) {
    while (v >= 0x80) {
      buf_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    buf_ += static_cast<char>(v);
  }
  void tag(uint32_t field, uint32_t wire) { varint((uint64_t{field} << 3) | wire); }
  // int64/uint64/bool fields; zero is the default and is left out.
  void uint(uint32_t field, uint64_t v) {
    if (v == 0) return;
    tag(field, 0);
    varint(v);
  }
  void sint(uint32_t field, int64_t v) {
    uint(field, static_cast<uint64_t>(v));
  }  // int64: two's complement
  void bytes(uint32_t field, std::string_view s) {
    tag(field, 2);
    varint(s.size());
    buf_ += s;
  }
  void message(uint32_t field, const ProtoWriter& m) { bytes(field, m.buf_); }
  void packed(uint32_t field, const std::vector<uint64_t>& values) {
    if (values.empty()) return;
    ProtoWriter p;
    for (uint64_t v : values) p.varint(v);
    bytes(field, p.buf_);
  }
  // Appends fields encoded elsewhere (fields of one message may come in any order).
  void raw(const ProtoWriter& fields) { buf_ += fields.buf_; }
  const std::string& data() const { return buf_; }
  void clear() { buf_.clear(); }

 private:
  std::string buf_;
};

// string_table[0] must be "".
class Strings : public StringTable {
 public:
  Strings() { index(""); }
};

std::string gzip(const std::string& data) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer, as pprof reads.
  // The fastest level: on 10M-sample profiles the default level dominated the run time.
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

void value_type(ProtoWriter& profile, uint32_t field, Strings& s, const char* type,
                const char* unit) {
  ProtoWriter vt;
  vt.uint(1, s.index(type));
  vt.uint(2, s.index(unit));
  profile.message(field, vt);
}

}  // namespace

std::string render_pprof(const Report& r) {
  const auto& table = r.symbols.table;
  Strings s;
  ProtoWriter profile, m, sub;
  // Profile fields: 1 sample_type, 2 sample, 3 mapping, 4 location, 5 function,
  // 6 string_table, 9 time_nanos, 10 duration_nanos, 11 period_type, 12 period,
  // 13 comment, 14 default_sample_type.
  // The time a sample stands for is CPU time, or wall time where the profile is of the wall
  // clock (`sample-run --clock wall`; pprof calls that sample type "wall"); "time" where
  // processes of both kinds are merged.
  const std::string_view kind = r.clock_kind();
  const char* time_type = kind == "cpu" ? "cpu" : kind == "wall" ? "wall" : "time";
  value_type(profile, 1, s, "samples", "count");
  value_type(profile, 1, s, time_type, "nanoseconds");

  std::vector<uint64_t> ids, values;
  // Label: 1 key, 2 str, 3 num. Encoded once per thread: every sample of it has the same.
  const auto str_label = [&](ProtoWriter& into, const char* key, const std::string& v) {
    sub.clear();
    sub.uint(1, s.index(key));
    sub.uint(2, s.index(v));
    into.message(3, sub);
  };
  const auto num_label = [&](ProtoWriter& into, const char* key, int64_t v) {
    sub.clear();
    sub.uint(1, s.index(key));
    sub.sint(3, v);
    into.message(3, sub);
  };
  for (size_t p = 0; p < r.processes.size(); ++p) {
    const auto& process = r.processes[p];
    const auto& locations = r.symbols.frame_locations[p];
    std::vector<ProtoWriter> labels(process.threads.size());
    for (size_t i = 0; i < labels.size(); ++i) {
      const auto& t = process.threads[i];
      num_label(labels[i], "pid", process.process.pid);
      str_label(labels[i], "process", process.label());
      num_label(labels[i], "tid", t.tid);
      if (!t.name.empty()) str_label(labels[i], "thread", t.name);
      if (process.process.rank >= 0) num_label(labels[i], "rank", process.process.rank);
      if (!process.run.empty()) str_label(labels[i], "run", process.run);
    }
    for (const auto& c : process.counts) {
      m.clear();
      ids.clear();
      const auto frames = process.stacks.frames(c.stack);
      const uint64_t base = process.stacks.offset(c.stack);
      for (size_t i = 0; i < frames.size(); ++i)
        ids.push_back(locations[base + i] + 1);  // leaf first
      m.packed(1, ids);
      values = {c.samples, c.weight_ns};
      m.packed(2, values);
      m.raw(labels[c.thread]);
      profile.message(2, m);
    }
  }

  // CPU time no sample covers (processes too short for one, the last part of a period):
  // a sample of its own per group, on a location and function of its own, so that
  // `pprof -top` lists it and the total holds it. No samples, only time; label unsampled.
  const auto unsampled = r.flat.all.time_ns > 0 ? unsampled_rows(r) : std::vector<UnsampledRow>{};
  const uint64_t first_unsampled = table.locations();  // their locations and functions follow
  for (size_t k = 0; k < unsampled.size(); ++k) {
    m.clear();
    ids = {first_unsampled + k + 1};
    m.packed(1, ids);
    values = {0, unsampled[k].ns};
    m.packed(2, values);
    str_label(m, "unsampled", "true");
    profile.message(2, m);
  }

  // Mapping: 1 id, 2 memory_start, 3 memory_limit, 4 file_offset, 5 filename, 6 build_id,
  // 7 has_functions, 8 has_filenames, 9 has_line_numbers, 10 has_inline_frames.
  const bool named = table.source != "none";
  for (size_t k = 0; k < table.modules.size(); ++k) {
    m.clear();
    m.uint(1, k + 1);
    m.uint(5, s.index(table.modules[k].path));
    m.uint(6, s.index(table.modules[k].build_id));
    m.uint(7, named);
    m.uint(8, named);
    m.uint(9, named);
    m.uint(10, named);
    profile.message(3, m);
  }
  // Location: 1 id, 2 mapping_id, 3 address, 4 line (1 function_id, 2 line).
  for (uint32_t l = 0; l < table.locations(); ++l) {
    m.clear();
    m.uint(1, l + 1);
    if (table.location_module[l] != SymbolTable::kNoModule) m.uint(2, table.location_module[l] + 1);
    m.uint(3, table.location_address[l]);
    for (const auto& f : table.frames_of(l)) {
      sub.clear();
      sub.uint(1, f.function + 1);
      sub.uint(2, table.lines[f.line].line);
      m.message(4, sub);
    }
    profile.message(4, m);
  }
  for (size_t k = 0; k < unsampled.size(); ++k) {
    m.clear();
    m.uint(1, first_unsampled + k + 1);
    sub.clear();
    sub.uint(1, table.functions.size() + k + 1);
    m.message(4, sub);
    profile.message(4, m);
  }
  // Function: 1 id, 2 name, 3 system_name, 4 filename, 5 start_line.
  for (uint32_t f = 0; f < table.functions.size(); ++f) {
    const auto& fn = table.functions[f];
    m.clear();
    m.uint(1, f + 1);
    m.uint(2, s.index(fn.name));
    m.uint(3, s.index(fn.name));
    m.uint(4, s.index(fn.file));
    m.uint(5, fn.line);
    profile.message(5, m);
  }
  for (size_t k = 0; k < unsampled.size(); ++k) {
    m.clear();
    m.uint(1, table.functions.size() + k + 1);
    m.uint(2, s.index(unsampled[k].label));
    m.uint(3, s.index(unsampled[k].label));
    profile.message(5, m);
  }

  uint64_t start = UINT64_MAX, duration = 0, period = 0;
  for (const auto& p : r.processes) {
    if (p.has_process_record && p.process.start_realtime_ns)
      start = std::min(start, p.process.start_realtime_ns);
    duration = std::max(duration, p.duration_ns());
    if (p.has_process_record && period == 0) period = p.process.period_ns;
  }
  value_type(profile, 11, s, time_type, "nanoseconds");
  profile.uint(12, period);
  profile.uint(13, s.index("causal-report: " + plural(r.processes.size(), "process", "processes")));
  if (const std::string cpu = cpu_account_line(r); !cpu.empty()) profile.uint(13, s.index(cpu));
  profile.uint(14, s.index(time_type));
  profile.uint(9, start == UINT64_MAX ? 0 : start);
  profile.uint(10, duration);
  // The string table last: every index above is in it by now.
  for (const auto& str : s.strings()) profile.bytes(6, format::valid_utf8(str));  // proto3: UTF-8
  return gzip(profile.data());
}

}  // namespace cprof::report
