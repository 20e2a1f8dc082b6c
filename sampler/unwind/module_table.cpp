#include "sampler/unwind/module_table.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "sampler/unwind/cfi_table.h"
#include "sampler/unwind/loader_walk.h"

namespace cprof::sampler {
namespace {

// DWARF pointer encodings (LSB "DW_EH_PE_*").
constexpr uint8_t kPeOmit = 0xff;
constexpr uint8_t kPeAbsptr = 0x00;
constexpr uint8_t kPeUdata4 = 0x03;
constexpr uint8_t kPeUdata8 = 0x04;
constexpr uint8_t kPeSdata4 = 0x0b;
constexpr uint8_t kPeSdata8 = 0x0c;
constexpr uint8_t kPePcrel = 0x10;
constexpr uint8_t kPeDatarel = 0x30;

template <class T>
T load(uint64_t addr) {
  T v;
  std::memcpy(&v, reinterpret_cast<const void*>(addr), sizeof v);
  return v;
}

// Reads one encoded pointer at *p (advancing it). `datarel_base` is the start of the
// .eh_frame_hdr section, the base for DW_EH_PE_datarel there.
bool read_encoded(uint64_t* p, uint64_t end, uint8_t enc, uint64_t datarel_base,
                  uint64_t* out) {
  uint64_t at = *p;
  uint64_t value = 0;
  uint64_t size = 0;
  switch (enc & 0x0f) {
    case kPeAbsptr: case kPeUdata8: case kPeSdata8:
      size = 8; if (at + size > end) return false; value = load<uint64_t>(at); break;
    case kPeUdata4:
      size = 4; if (at + size > end) return false; value = load<uint32_t>(at); break;
    case kPeSdata4:
      size = 4; if (at + size > end) return false;
      value = static_cast<uint64_t>(static_cast<int64_t>(load<int32_t>(at))); break;
    default:
      return false;
  }
  switch (enc & 0x70) {
    case 0: break;
    case kPePcrel: value += at; break;
    case kPeDatarel: value += datarel_base; break;
    default: return false;
  }
  *p = at + size;
  *out = value;
  return true;
}

// NT_GNU_BUILD_ID from a PT_NOTE segment mapped at [p, end).
std::string find_build_id(uint64_t p, uint64_t end) {
  while (p + sizeof(ElfW(Nhdr)) <= end) {
    auto nh = load<ElfW(Nhdr)>(p);
    uint64_t name = p + sizeof(ElfW(Nhdr));
    uint64_t desc = name + ((nh.n_namesz + 3) & ~3u);
    uint64_t next = desc + ((nh.n_descsz + 3) & ~3u);
    if (next > end) break;
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
        std::memcmp(reinterpret_cast<const void*>(name), "GNU", 4) == 0) {
      static constexpr char kHex[] = "0123456789abcdef";
      std::string hex;
      hex.reserve(size_t{nh.n_descsz} * 2);
      for (uint32_t i = 0; i < nh.n_descsz; ++i) {
        auto b = load<uint8_t>(desc + i);
        hex.push_back(kHex[b >> 4]);
        hex.push_back(kHex[b & 15]);
      }
      return hex;
    }
    p = next;
  }
  return {};
}

std::string self_exe_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

int collect(struct dl_phdr_info* info, size_t, void* data) {
  auto* out = static_cast<std::vector<Module>*>(data);
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  Module m;
  m.load_bias = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uint64_t start = info->dlpi_addr + ph.p_vaddr;
    uint64_t end = start + ph.p_memsz;
    if (ph.p_type == PT_LOAD && ph.p_memsz > 0) {
      if (ph.p_flags & PF_X) m.code.push_back({start, end});
      if (ph.p_flags & PF_R) m.mapped.push_back({start & ~(page - 1), (end + page - 1) & ~(page - 1)});
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      if (!decode_eh_frame_hdr(start, ph.p_memsz, &m.eh)) m.eh = EhFrameHdr{start, ph.p_memsz};
    } else if (ph.p_type == PT_NOTE && m.build_id.empty()) {
      m.build_id = find_build_id(start, end);
    }
  }
  if (m.code.empty()) return 0;
  const char* name = info->dlpi_name;
  if (name == nullptr || name[0] == '\0') {
    // The first entry without a name is the main program; the vDSO is named
    // "linux-vdso.so.1" by glibc, but keep a fallback for loaders that leave it empty.
    m.path = out->empty() ? self_exe_path() : std::string("[vdso]");
  } else if (std::strncmp(name, "linux-vdso", 10) == 0 || std::strncmp(name, "linux-gate", 10) == 0) {
    m.path = "[vdso]";
  } else {
    m.path = name;
  }
  out->push_back(std::move(m));
  return 0;
}

// Runs fn() where `m` cannot be unmapped under it: inside dl_iterate_phdr's callback for
// the loaded object at m's address with m's .eh_frame_hdr. dlclose unlinks an object under
// the lock dl_iterate_phdr holds and unmaps it only after, so an object the callback sees
// stays mapped until the callback returns. A snapshot can still list a library another
// thread has just unloaded (Open MPI dlcloses its components at MPI_Init while the writer
// thread parses tables: SIGSEGV reading the unmapped .eh_frame). Returns false, without
// running fn, when no loaded object is `m`. A module without a search table has nothing
// to read: fn runs at once.
template <class Fn>
bool while_loaded(const Module& m, Fn fn) {
  if (m.eh.table == 0) {
    fn();
    return true;
  }
  struct Search {
    const Module* m;
    Fn* fn;
    bool ran;
  } search{&m, &fn, false};
  walk_loaded_objects(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_addr != s->m->load_bias) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_GNU_EH_FRAME && info->dlpi_addr + ph.p_vaddr == s->m->eh.hdr) {
            (*s->fn)();
            s->ran = true;
            return 1;
          }
        }
        return 0;
      },
      &search);
  return search.ran;
}

template <class Entry>
const Entry* find_entry(const std::vector<Entry>& v, uint64_t addr) noexcept {
  // First entry with start > addr, then step back: the only candidate.
  auto it = std::upper_bound(v.begin(), v.end(), addr,
                             [](uint64_t a, const Entry& e) { return a < e.range.start; });
  if (it == v.begin()) return nullptr;
  --it;
  return it->range.contains(addr) ? &*it : nullptr;
}

}  // namespace

bool decode_eh_frame_hdr(uint64_t hdr, uint64_t size, EhFrameHdr* out) noexcept {
  *out = EhFrameHdr{hdr, size};
  if (size < 4) return false;
  const uint64_t end = hdr + size;
  auto version = load<uint8_t>(hdr);
  auto eh_frame_ptr_enc = load<uint8_t>(hdr + 1);
  auto fde_count_enc = load<uint8_t>(hdr + 2);
  auto table_enc = load<uint8_t>(hdr + 3);
  if (version != 1) return false;
  uint64_t p = hdr + 4;
  if (eh_frame_ptr_enc == kPeOmit || !read_encoded(&p, end, eh_frame_ptr_enc, hdr, &out->eh_frame))
    return false;
  uint64_t count = 0;
  if (fde_count_enc == kPeOmit || !read_encoded(&p, end, fde_count_enc, hdr, &count)) return true;
  // libunwind's binary search (and ours) only understands 4-byte datarel entries, which is
  // what GNU ld, gold, lld and mold emit. Anything else: no table, no unwinding through it.
  if (table_enc != (kPeDatarel | kPeSdata4)) return true;
  if (count > (end - p) / 8) return false;  // table must fit in the section
  out->table = p;
  out->fde_count = count;
  return true;
}

const Module* ModuleSnapshot::find(uint64_t pc) const noexcept {
  const Entry* e = find_entry(code_, pc);
  return e ? &modules_[e->module] : nullptr;
}

bool ModuleSnapshot::is_mapped(uint64_t addr, uint64_t len) const noexcept {
  const Entry* e = find_entry(mapped_, addr);
  return e != nullptr && len <= e->range.end - addr;
}

ModuleTable::ModuleTable(CfiTables tables) : tables_mode_(tables) { refresh(); }

ModuleTable::~ModuleTable() { current_.store(nullptr, std::memory_order_release); }

void ModuleTable::refresh(LoaderCounts loader) {
  auto snap = std::make_unique<ModuleSnapshot>();
  snap->loader_ = loader;
  walk_loaded_objects(collect, &snap->modules_);
  for (uint32_t i = 0; i < snap->modules_.size(); ++i) {
    for (const auto& r : snap->modules_[i].code) snap->code_.push_back({r, i});
    for (const auto& r : snap->modules_[i].mapped) snap->mapped_.push_back({r, i});
  }
  auto by_start = [](const auto& a, const auto& b) { return a.range.start < b.range.start; };
  std::sort(snap->code_.begin(), snap->code_.end(), by_start);
  std::sort(snap->mapped_.begin(), snap->mapped_.end(), by_start);
  // Page-rounded segments of one module can touch or overlap (RELRO, bss); merge them so
  // the binary search finds one range per address.
  std::vector<ModuleSnapshot::Entry> merged;
  for (const auto& e : snap->mapped_) {
    if (!merged.empty() && e.range.start <= merged.back().range.end) {
      merged.back().range.end = std::max(merged.back().range.end, e.range.end);
    } else {
      merged.push_back(e);
    }
  }
  snap->mapped_ = std::move(merged);

  std::lock_guard lock(writer_mutex_);
  // Two threads' dlopens may refresh at once: the one that walked earlier publishes
  // nothing once the other's is out.
  if (const ModuleSnapshot* now = current_.load(std::memory_order_acquire);
      now != nullptr && now->loader_.changes() > snap->loader_.changes()) {
    return;
  }
  // The rent counted on the outgoing snapshot's modules would be lost with it (a handler
  // still walking it after this point loses a count or two).
  if (const ModuleSnapshot* old = current_.load(std::memory_order_acquire)) {
    for (const Module& m : old->modules_) fold_rent_locked(m);
  }
  // Parse each module's .eh_frame once: reuse the table of a module already seen at the
  // same address (dlopen of other libraries refreshes often; libc's table is ~2 ms).
  for (const Module& m : snap->modules_) attach_locked(m, tables_mode_ == CfiTables::eager);
  snap->generation_ = next_generation_++;
  const ModuleSnapshot* published = snap.get();
  all_.push_back(std::move(snap));
  // Release: a handler that sees the pointer sees the fully built snapshot.
  current_.store(published, std::memory_order_release);
}

bool ModuleTable::refresh_if_loader_changed() {
  const LoaderCounts now = loader_counts();
  if (now == snapshot()->loader_) return false;
  refresh(now);  // read once: the walk sees at least these changes
  return true;
}

ModuleTable::ParsedCfi& ModuleTable::parsed_entry_locked(const Module& m) {
  for (ParsedCfi& p : parsed_) {
    if (p.load_bias == m.load_bias && p.eh_frame_hdr == m.eh.hdr && p.path == m.path &&
        p.build_id == m.build_id) {
      return p;
    }
  }
  ParsedCfi& p = parsed_.emplace_back();
  p.path = m.path;
  p.build_id = m.build_id;
  p.load_bias = m.load_bias;
  p.eh_frame_hdr = m.eh.hdr;
  return p;
}

bool ModuleTable::attach_locked(const Module& m, bool parse) {
  ParsedCfi& p = parsed_entry_locked(m);
  bool parsed_now = false;
  if (!p.parsed && parse) {
    // Unloaded since the snapshot: left unparsed, for a later load at the same address.
    if (!while_loaded(m, [&] { p.table = build_cfi_table(m); })) return false;
    p.parsed = true;
    parsed_now = true;
  }
  if (p.parsed) m.cfi.table_.store(p.table.get(), std::memory_order_release);
  return parsed_now;
}

ModuleTable::ParsedCfi* ModuleTable::fold_rent_locked(const Module& m) {
  // Most modules see no hand-off: one relaxed load each, no lookup.
  if (m.cfi.handoffs_.load(std::memory_order_relaxed) == 0) return nullptr;
  ParsedCfi& p = parsed_entry_locked(m);
  p.rent.handoffs += m.cfi.handoffs_.exchange(0, std::memory_order_relaxed);
  p.rent.frames += m.cfi.frames_.exchange(0, std::memory_order_relaxed);
  return &p;
}

size_t ModuleTable::build_wanted_tables() {
  std::lock_guard lock(writer_mutex_);
  const ModuleSnapshot* snap = current_.load(std::memory_order_acquire);
  size_t parsed = 0;
  for (const Module& m : snap->modules_) {
    // Only new rent can tip the balance: the price of a module never changes.
    ParsedCfi* p = fold_rent_locked(m);
    if (p == nullptr || m.cfi.get() != nullptr) continue;
    if (!p->parsed && tables_mode_ == CfiTables::on_demand) {
      if (!p->sized) {
        if (!while_loaded(m, [&] { p->eh_frame_bytes = eh_frame_size(m); })) continue;
        p->sized = true;
      }
      if (!cfi_table_pays_off(p->rent, p->eh_frame_bytes)) continue;
    }
    if (attach_locked(m, true)) ++parsed;
  }
  return parsed;
}

CfiRent ModuleTable::rent(const Module& m) {
  std::lock_guard lock(writer_mutex_);
  // Reads without folding: build_wanted_tables() decides on the rent it folds itself.
  CfiRent r = parsed_entry_locked(m).rent;
  r.handoffs += m.cfi.handoffs_.load(std::memory_order_relaxed);
  r.frames += m.cfi.frames_.load(std::memory_order_relaxed);
  return r;
}

}  // namespace cprof::sampler
