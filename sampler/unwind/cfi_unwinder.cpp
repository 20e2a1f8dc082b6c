// The fast DWARF walk over CfiTables, and its hand-off to libunwind (cfi_unwinder.h).
#include "sampler/unwind/cfi_unwinder.h"

#include <cstring>

#include "sampler/unwind/cfi_table.h"
#include "sampler/unwind/stack_read.h"
#include "sampler/unwind/unwinder.h"

namespace cprof::sampler {
namespace {

// The registers a CfiRow can recover. `callee` (rbx, r12..r15) is tracked only on the
// hand-off path, where libunwind needs every callee-saved register of the frame it starts
// at; the fast path needs just pc, sp and rbp.
struct Regs {
  uint64_t pc, sp, fp;
  uint64_t callee[kSlotCount - 1];
};

constexpr int kCalleeGreg[kSlotCount - 1] = {REG_RBX, REG_R12, REG_R13, REG_R14, REG_R15};

Regs regs_of(const ucontext_t* uc) {
  const auto& g = uc->uc_mcontext.gregs;
  Regs r;
  r.pc = static_cast<uint64_t>(g[REG_RIP]);
  r.sp = static_cast<uint64_t>(g[REG_RSP]);
  r.fp = static_cast<uint64_t>(g[REG_RBP]);
  for (int i = 0; i < kSlotCount - 1; ++i) r.callee[i] = static_cast<uint64_t>(g[kCalleeGreg[i]]);
  return r;
}

// One stack word, only from the live part of the thread's stack (stack_read.h).
inline bool read_stack(StackBounds live, uint64_t addr, uint64_t* out) {
  if (!live.contains(addr, sizeof *out)) return false;
  *out = load_word(addr);
  return true;
}

inline bool in_code(const Module& m, uint64_t pc) {
  for (const AddressRange& r : m.code) {
    if (r.contains(pc)) return true;
  }
  return false;
}

enum class Walk { kDone, kHandOff };

// Unwinds from `r` (the registers of frame n - 1) while the rows are simple, appending
// return addresses to frames[n..max). kDone: the stack ended (outermost frame, a bad CFA
// or return address, or `max`); kHandOff: frame n - 1 needs libunwind, `r` holds its
// registers (callee-saved ones too if kTrackCallee), and `untabled` is its module if the
// reason is that the module has no table yet.
template <bool kTrackCallee>
Walk walk(const ModuleSnapshot& modules, StackBounds live, Regs& r, uint64_t* frames, size_t& n,
          size_t max, const Module*& untabled) {
  const Module* m = nullptr;
  while (n < max) {
    // Frame 0's PC is the interrupted instruction; every later one is a return address,
    // whose call instruction (and CFI row) lies just before it.
    const uint64_t at = n == 1 ? r.pc : r.pc - 1;
    if (m == nullptr || !in_code(*m, at)) m = modules.find(at);
    const CfiTable* table = m != nullptr ? m->cfi.get() : nullptr;
    if (table == nullptr) {
      untabled = m;
      return Walk::kHandOff;
    }
    const CfiRow* row = table->find(at);
    if (row == nullptr) return Walk::kHandOff;
    uint64_t cfa;
    switch (row->rule) {
      case CfiRule::kCfaRsp:
        cfa = r.sp + static_cast<uint64_t>(int64_t{row->cfa_offset});
        break;
      case CfiRule::kCfaRbp:
        cfa = r.fp + static_cast<uint64_t>(int64_t{row->cfa_offset});
        break;
      case CfiRule::kCfaPlt:
        cfa = r.sp + 8 + ((r.pc & 15) >= static_cast<uint64_t>(row->cfa_offset) ? 8 : 0);
        break;
      case CfiRule::kOutermost:
        return Walk::kDone;
      default:
        return Walk::kHandOff;
    }
    // The caller's frame is strictly above this one: anything else is garbage (and could
    // loop). The return address sits at CFA - 8.
    uint64_t ra;
    if (cfa <= r.sp || !read_stack(live, cfa - 8, &ra)) return Walk::kDone;
    if (row->saved[kSlotRbp] != 0 &&
        !read_stack(live, cfa + 8 * static_cast<int64_t>(row->saved[kSlotRbp]), &r.fp)) {
      return Walk::kDone;
    }
    if constexpr (kTrackCallee) {
      for (int i = 1; i < kSlotCount; ++i) {
        if (row->saved[i] != 0 &&
            !read_stack(live, cfa + 8 * static_cast<int64_t>(row->saved[i]), &r.callee[i - 1])) {
          return Walk::kDone;
        }
      }
    }
    r.sp = cfa;
    r.pc = ra;
    if (ra == 0) return Walk::kDone;  // as libunwind: a zero return address ends the stack
    frames[n++] = ra;
  }
  return Walk::kDone;
}

// libunwind, started at a frame, looks its CFI up at the PC itself, while a walk from
// the top would have used PC - 1 for a return address. Both give the same FDE unless the
// call was the last instruction of its function (a noreturn call).
bool same_fde(const ModuleSnapshot& modules, uint64_t a, uint64_t b) {
  const Module* ma = modules.find(a);
  if (ma != modules.find(b)) return false;
  if (ma == nullptr) return true;  // libunwind finds no FDE for either
  const CfiTable* table = ma->cfi.get();
  if (table == nullptr) return ma->eh.table == 0;
  return table->same_fde(a, b);
}

}  // namespace

size_t unwind_with_cfi(const ModuleSnapshot& modules, const LibunwindUnwinder* fallback,
                       const ucontext_t* uc, StackBounds stack, uint64_t* frames, size_t max,
                       CfiWalkInfo* info) noexcept {
  CfiWalkInfo scratch;
  if (info == nullptr) info = &scratch;
  *info = {};
  if (uc == nullptr || max == 0) return 0;
  Regs r = regs_of(uc);
  frames[0] = r.pc;
  size_t n = 1;
  const StackBounds live = stack.live_part(r.sp);
  // A walk stopped by a module without a table counts what libunwind did in its place:
  // the ModuleTable's owner weighs that against parsing the table (cfi_policy.h).
  const Module* untabled = nullptr;
  if (walk<false>(modules, live, r, frames, n, max, untabled) == Walk::kDone ||
      fallback == nullptr) {
    if (untabled != nullptr) untabled->cfi.want(0);
    info->table_frames = n;
    return n;
  }
  // Frame k = n - 1 needs libunwind.
  const size_t k = n - 1;
  info->table_frames = k;
  info->handed_off = true;
  if (k > 0 && !same_fde(modules, r.pc - 1, r.pc)) {
    info->restarted = true;
    const size_t got = fallback->unwind(uc, stack, frames, max);
    if (untabled != nullptr) untabled->cfi.want(got);
    return got;
  }
  // Walk again to frame k, this time recovering rbx and r12..r15 as well, which libunwind
  // needs if a later frame's CFI refers to them. Rare (complex frames), so the common
  // path stays three registers.
  Regs full = regs_of(uc);
  size_t m = 1;
  const Module* ignored = nullptr;
  if (k > 0) walk<true>(modules, live, full, frames, m, k + 1, ignored);
  if (m != k + 1 || full.pc != r.pc || full.sp != r.sp) return n;  // cannot happen: same walk
  ucontext_t at;
  std::memcpy(at.uc_mcontext.gregs, uc->uc_mcontext.gregs, sizeof at.uc_mcontext.gregs);
  auto& g = at.uc_mcontext.gregs;
  g[REG_RIP] = static_cast<greg_t>(full.pc);
  g[REG_RSP] = static_cast<greg_t>(full.sp);
  g[REG_RBP] = static_cast<greg_t>(full.fp);
  for (int i = 0; i < kSlotCount - 1; ++i) g[kCalleeGreg[i]] = static_cast<greg_t>(full.callee[i]);
  const size_t got = fallback->unwind(&at, stack, frames + k, max - k);
  if (untabled != nullptr) untabled->cfi.want(got);
  return k + got;
}

size_t unwind_with_dwarf(const ucontext_t* uc, StackBounds stack, uint64_t* frames,
                         size_t max) noexcept {
  const LibunwindUnwinder* u = default_unwinder();
  if (u != nullptr) return unwind_with_cfi(*u->modules().snapshot(), u, uc, stack, frames, max);
  if (uc == nullptr || max == 0) return 0;
  frames[0] = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
  return 1;
}

}  // namespace cprof::sampler
