#include "causal/patch_plan.h"

#include <charconv>
#include <cstring>
#include <limits>

namespace cprof::causal {
namespace {

constexpr char kHex[] = "0123456789abcdef";

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool leaves_window(PatchStep::Kind kind) {
  return kind == PatchStep::Kind::call || kind == PatchStep::Kind::jump;
}

// Splits "a.b.c" into numbers; false when a part is not one.
bool numbers(std::string_view text, std::vector<int64_t>& out) {
  out.clear();
  while (true) {
    const size_t dot = text.find('.');
    const std::string_view part = text.substr(0, dot);
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size()) return false;
    out.push_back(value);
    if (dot == std::string_view::npos) return true;
    text.remove_prefix(dot + 1);
  }
}

bool fits_rel32(int64_t value) {
  return value >= std::numeric_limits<int32_t>::min() &&
         value <= std::numeric_limits<int32_t>::max();
}

void put32(std::vector<uint8_t>& out, int64_t value) {
  const auto v = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Appends the rel32 that ends an instruction at `out`'s end (placed at `base`), reaching
// `target`; false when out of reach.
bool rel32_to(std::vector<uint8_t>& out, uint64_t base, uint64_t target) {
  const int64_t rel = static_cast<int64_t>(target - (base + out.size() + 4));
  if (!fits_rel32(rel)) return false;
  put32(out, rel);
  return true;
}

}  // namespace

std::string format_patch_plan(const PatchPlan& plan) {
  std::string text;
  for (const uint8_t b : plan.bytes) {
    text += kHex[b >> 4];
    text += kHex[b & 15];
  }
  text += ';';
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PatchStep& s = plan.steps[i];
    if (i > 0) text += ',';
    text += static_cast<char>(s.kind);
    text += std::to_string(s.length);
    switch (s.kind) {
      case PatchStep::Kind::copy:
        break;
      case PatchStep::Kind::rip_data:
        text += '.' + std::to_string(s.disp_offset);
        break;
      case PatchStep::Kind::branch:
        text += '.' + std::to_string(s.condition) + '.' + std::to_string(s.target_delta);
        break;
      case PatchStep::Kind::call:
      case PatchStep::Kind::jump:
        text += '.' + std::to_string(s.target_delta);
        break;
    }
  }
  return text;
}

std::optional<PatchPlan> parse_patch_plan(std::string_view text, std::string& error) {
  PatchPlan plan;
  const size_t semi = text.find(';');
  if (semi == std::string_view::npos || semi % 2 != 0 || semi == 0) {
    error = "no byte list before ';'";
    return std::nullopt;
  }
  for (size_t i = 0; i < semi; i += 2) {
    const int hi = hex_digit(text[i]);
    const int lo = hex_digit(text[i + 1]);
    if (hi < 0 || lo < 0) {
      error = "a byte that is not two hex digits";
      return std::nullopt;
    }
    plan.bytes.push_back(static_cast<uint8_t>(hi * 16 + lo));
  }
  std::string_view steps = text.substr(semi + 1);
  size_t covered = 0;
  std::vector<int64_t> n;
  while (!steps.empty()) {
    const size_t comma = steps.find(',');
    const std::string_view item = steps.substr(0, comma);
    steps.remove_prefix(comma == std::string_view::npos ? steps.size() : comma + 1);
    if (item.size() < 2 || !numbers(item.substr(1), n) || n[0] <= 0 || n[0] > 15) {
      error = "a step that is not KIND LENGTH[.ARG...]";
      return std::nullopt;
    }
    PatchStep s;
    s.kind = static_cast<PatchStep::Kind>(item[0]);
    s.length = static_cast<uint8_t>(n[0]);
    size_t args = 0;
    switch (s.kind) {
      case PatchStep::Kind::copy:
        args = 0;
        break;
      case PatchStep::Kind::rip_data:
        args = 1;
        if (n.size() == 2) s.disp_offset = static_cast<uint8_t>(n[1]);
        if (n.size() == 2 && (n[1] < 1 || n[1] + 4 > n[0])) args = 99;
        break;
      case PatchStep::Kind::branch:
        args = 2;
        if (n.size() == 3) {
          s.condition = static_cast<uint8_t>(n[1] & 15);
          s.target_delta = n[2];
        }
        break;
      case PatchStep::Kind::call:
      case PatchStep::Kind::jump:
        args = 1;
        if (n.size() == 2) s.target_delta = n[1];
        break;
      default:
        args = 99;
    }
    if (n.size() != args + 1) {
      error = "a step of an unknown kind or with the wrong arguments";
      return std::nullopt;
    }
    if (!plan.steps.empty() && leaves_window(plan.steps.back().kind)) {
      error = "a call or jump that is not the window's last instruction";
      return std::nullopt;
    }
    covered += s.length;
    plan.steps.push_back(s);
  }
  if (plan.steps.empty() || covered != plan.bytes.size() || covered < kPatchJumpBytes) {
    error = "steps that do not cover the window's bytes";
    return std::nullopt;
  }
  return plan;
}

std::optional<std::vector<uint8_t>> trampoline_code(const PatchPlan& plan, uint64_t site,
                                                    uint64_t trampoline, uint64_t counter,
                                                    std::string& error,
                                                    std::vector<TrampolineRow>* rows) {
  std::vector<uint8_t> out;
  const auto out_of_reach = [&](const char* what) {
    error = std::string(what) + " is out of a 32-bit displacement's reach of the trampoline";
    return std::nullopt;
  };
  // From the next byte of `out` on, the program is as at `original_offset` into the
  // window, its stack pointer `shift` bytes from there.
  const auto row = [&](size_t original_offset, int shift) {
    if (rows == nullptr) return;
    const TrampolineRow r{static_cast<uint16_t>(out.size()), static_cast<uint16_t>(original_offset),
                          static_cast<int16_t>(shift)};
    if (rows->empty() || rows->back().original_offset != r.original_offset ||
        rows->back().stack_shift != r.stack_shift) {
      rows->push_back(r);
    }
  };
  if (rows != nullptr) rows->clear();
  row(0, 0);
  // lea rsp, [rsp-128]: pushes must not touch the red zone a leaf function keeps below rsp.
  out.insert(out.end(), {0x48, 0x8d, 0x64, 0x24, 0x80});
  row(0, -128);
  out.push_back(0x9c);  // pushfq: the increment sets flags the program's code may still use
  row(0, -136);
  out.insert(out.end(), {0xf0, 0x48, 0xff, 0x05});  // lock inc qword [rip+rel32]
  if (!rel32_to(out, trampoline, counter)) return out_of_reach("the counter");
  out.push_back(0x9d);  // popfq
  row(0, -128);
  out.insert(out.end(), {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00});  // lea rsp, [rsp+128]

  size_t offset = 0;  // of the current instruction in the window
  const uint64_t window_end = site + plan.bytes.size();
  bool left = false;
  for (const PatchStep& s : plan.steps) {
    row(offset, 0);
    const uint8_t* original = plan.bytes.data() + offset;
    const uint64_t target = site + static_cast<uint64_t>(s.target_delta);
    switch (s.kind) {
      case PatchStep::Kind::copy:
        out.insert(out.end(), original, original + s.length);
        break;
      case PatchStep::Kind::rip_data: {
        int32_t disp = 0;
        std::memcpy(&disp, original + s.disp_offset, 4);
        const uint64_t data = site + offset + s.length + static_cast<int64_t>(disp);
        const size_t at = out.size();
        out.insert(out.end(), original, original + s.length);
        const int64_t rebased = static_cast<int64_t>(data - (trampoline + at + s.length));
        if (!fits_rel32(rebased)) return out_of_reach("a RIP-relative operand");
        const auto r = static_cast<int32_t>(rebased);
        std::memcpy(out.data() + at + s.disp_offset, &r, 4);
        break;
      }
      case PatchStep::Kind::call: {
        // The original return address, pushed as two dwords (no flags changed), then a
        // jump: the callee returns straight to the code after the window, and unwinders
        // and exceptions see the frame the program had.
        const uint64_t ret = window_end;
        out.insert(out.end(), {0x48, 0x8d, 0x64, 0x24, 0xf8});  // lea rsp, [rsp-8]
        row(offset, -8);
        out.insert(out.end(), {0xc7, 0x04, 0x24});              // mov dword [rsp], imm32
        put32(out, static_cast<int64_t>(ret & 0xffffffffU));
        out.insert(out.end(), {0xc7, 0x44, 0x24, 0x04});  // mov dword [rsp+4], imm32
        put32(out, static_cast<int64_t>(ret >> 32));
        out.push_back(0xe9);
        if (!rel32_to(out, trampoline, target)) return out_of_reach("the call's target");
        left = true;
        break;
      }
      case PatchStep::Kind::jump:
        out.push_back(0xe9);
        if (!rel32_to(out, trampoline, target)) return out_of_reach("the jump's target");
        left = true;
        break;
      case PatchStep::Kind::branch:
        out.insert(out.end(), {0x0f, static_cast<uint8_t>(0x80 | s.condition)});
        if (!rel32_to(out, trampoline, target)) return out_of_reach("the branch's target");
        break;
    }
    offset += s.length;
  }
  if (!left) {
    row(offset, 0);
    out.push_back(0xe9);  // jmp back to the code after the window
    if (!rel32_to(out, trampoline, window_end)) return out_of_reach("the site");
  }
  return out;
}

std::optional<std::vector<uint8_t>> site_jump(const PatchPlan& plan, uint64_t site,
                                              uint64_t trampoline) {
  if (plan.bytes.size() < kPatchJumpBytes) return std::nullopt;
  std::vector<uint8_t> out{0xe9};
  if (!rel32_to(out, site, trampoline)) return std::nullopt;
  out.resize(plan.bytes.size(), 0xcc);
  return out;
}

}  // namespace cprof::causal
