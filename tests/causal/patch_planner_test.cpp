// What causal-run moves out of a function to count a --progress place in its code
// (causal/launcher/patch_planner.h), and where it refuses: functions given as bytes.
#include "causal/launcher/patch_planner.h"

#include <gtest/gtest.h>

#include <vector>

namespace cprof::causal {
namespace {

constexpr uint64_t kStart = 0x1000;

std::optional<PlannedPatch> plan(const std::vector<uint8_t>& code, uint64_t offset,
                                 std::string& why) {
  return plan_patch_in(code, kStart, kStart + offset, {}, 0, why);
}

TEST(PatchPlanner, ARipRelativeLoadMovesAlone) {
  // mov rax, [rip+0x100]; add rax, rdi; ret
  const std::vector<uint8_t> code = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00,
                                     0x00, 0x48, 0x01, 0xf8, 0xc3};
  std::string why;
  const auto p = plan(code, 0, why);
  ASSERT_TRUE(p.has_value()) << why;
  EXPECT_EQ(p->site, kStart);
  ASSERT_EQ(p->plan.steps.size(), 1u);
  EXPECT_EQ(p->plan.steps[0].kind, PatchStep::Kind::rip_data);
  EXPECT_EQ(p->plan.steps[0].disp_offset, 3);
  EXPECT_EQ(p->plan.bytes.size(), 7u);
}

TEST(PatchPlanner, ShortInstructionsMakeTheWindowTogether) {
  // xor eax, eax; add eax, edi; add eax, 1; ret
  const std::vector<uint8_t> code = {0x31, 0xc0, 0x01, 0xf8, 0x83, 0xc0, 0x01, 0xc3};
  std::string why;
  const auto p = plan(code, 0, why);
  ASSERT_TRUE(p.has_value()) << why;
  ASSERT_EQ(p->plan.steps.size(), 3u);
  EXPECT_EQ(p->plan.bytes.size(), 7u);
  for (const auto& s : p->plan.steps) EXPECT_EQ(s.kind, PatchStep::Kind::copy);
}

TEST(PatchPlanner, AnEndbr64StaysWhereIndirectCallsLookForIt) {
  // endbr64; mov eax, 7; ret
  const std::vector<uint8_t> code = {0xf3, 0x0f, 0x1e, 0xfa, 0xb8, 0x07, 0x00, 0x00, 0x00, 0xc3};
  std::string why;
  const auto p = plan(code, 0, why);
  ASSERT_TRUE(p.has_value()) << why;
  EXPECT_EQ(p->site, kStart + 4);
  EXPECT_EQ(p->plan.bytes.size(), 5u);
}

TEST(PatchPlanner, ACallAndAShortBranchMoveAsTheirTargets) {
  // call +0x20 (to 0x1025); ret
  const std::vector<uint8_t> call = {0xe8, 0x20, 0x00, 0x00, 0x00, 0xc3};
  std::string why;
  const auto c = plan(call, 0, why);
  ASSERT_TRUE(c.has_value()) << why;
  ASSERT_EQ(c->plan.steps.size(), 1u);
  EXPECT_EQ(c->plan.steps[0].kind, PatchStep::Kind::call);
  EXPECT_EQ(c->plan.steps[0].target_delta, 0x25);
  // cmp edi, 3; jle +5; mov eax, 2; ret
  const std::vector<uint8_t> branch = {0x83, 0xff, 0x03, 0x7e, 0x05, 0xb8, 2, 0, 0, 0, 0xc3};
  const auto b = plan(branch, 0, why);
  ASSERT_TRUE(b.has_value()) << why;
  ASSERT_EQ(b->plan.steps.size(), 2u);
  EXPECT_EQ(b->plan.steps[1].kind, PatchStep::Kind::branch);
  EXPECT_EQ(b->plan.steps[1].condition, 0xe);
  EXPECT_EQ(b->plan.steps[1].target_delta, 10);
}

TEST(PatchPlanner, CodeThatCannotBeMovedIsRefusedWithTheReason) {
  std::string why;
  // jmp +3 lands on the second add of the window: add eax, 2; add eax, 1; ...
  const std::vector<uint8_t> landed = {0xeb, 0x03, 0x83, 0xc0, 0x02, 0x83, 0xc0,
                                       0x01, 0xff, 0xc9, 0x7f, 0xf6, 0xc3};
  EXPECT_FALSE(plan(landed, 2, why).has_value());
  EXPECT_EQ(why, "a branch lands within its first 5 bytes");
  // xor eax, eax; jmp -4: the window's first instruction is followed by a branch.
  const std::vector<uint8_t> leaves = {0x31, 0xc0, 0xeb, 0xfc, 0x90, 0x90, 0xc3};
  EXPECT_FALSE(plan(leaves, 0, why).has_value());
  EXPECT_NE(why.find("leaves the line's first bytes"), std::string::npos) << why;
  // call [rip+0x10]: copied, it would return into the trampoline.
  const std::vector<uint8_t> indirect = {0xff, 0x15, 0x10, 0x00, 0x00, 0x00, 0xc3};
  EXPECT_FALSE(plan(indirect, 0, why).has_value());
  EXPECT_NE(why.find("indirect call"), std::string::npos) << why;
  // A short first instruction in a function with a jump table (jmp rax).
  const std::vector<uint8_t> table = {0x31, 0xc0, 0x01, 0xf8, 0x83, 0xc0, 0x01, 0xff, 0xe0};
  EXPECT_FALSE(plan(table, 0, why).has_value());
  EXPECT_NE(why.find("jumps through a table"), std::string::npos) << why;
  // An address inside an instruction.
  EXPECT_FALSE(plan(table, 1, why).has_value());
  EXPECT_NE(why.find("not an instruction"), std::string::npos) << why;
  // The function ends first: xor eax, eax; nop
  const std::vector<uint8_t> tiny = {0x31, 0xc0, 0x90};
  EXPECT_FALSE(plan(tiny, 0, why).has_value());
  EXPECT_NE(why.find("ends within 5 bytes"), std::string::npos) << why;
}

TEST(PatchPlanner, ABranchFromTheColdPartCounts) {
  // add eax, 2; add eax, 1; ret, and a .cold part at 0x2000 that jumps to 0x1003.
  const std::vector<uint8_t> hot = {0x83, 0xc0, 0x02, 0x83, 0xc0, 0x01, 0xc3};
  const std::vector<uint8_t> cold = {0xe9, 0xfe, 0xef, 0xff, 0xff};  // jmp 0x1003
  std::string why;
  EXPECT_TRUE(plan_patch_in(hot, kStart, kStart, {}, 0, why).has_value()) << why;
  EXPECT_FALSE(plan_patch_in(hot, kStart, kStart, cold, 0x2000, why).has_value());
  EXPECT_EQ(why, "a branch lands within its first 5 bytes");
}

// Two --progress lines whose code is adjacent: the first one's window (three short
// instructions) holds the second one's first instruction, so neither is moved; a place
// of another module, or clear of them, keeps its plan.
TEST(PatchPlanner, WindowsThatHoldAnotherPlaceAreDropped) {
  // xor eax, eax (line A); add eax, edi (line B); add eax, 1; ret
  const std::vector<uint8_t> code = {0x31, 0xc0, 0x01, 0xf8, 0x83, 0xc0, 0x01,
                                     0xc3, 0xb8, 0x07, 0x00, 0x00, 0x00, 0xc3};
  std::string why;
  std::vector<PlacePlan> places;
  for (const uint64_t offset : {0, 2, 8}) {
    PlacePlan p{kStart + offset, "", plan(code, offset, why), ""};
    ASSERT_TRUE(p.planned.has_value()) << offset << ": " << why;
    places.push_back(std::move(p));
  }
  places.push_back(PlacePlan{kStart, "/lib/other.so", plan(code, 0, why), ""});
  drop_overlapping_plans(places);
  EXPECT_FALSE(places[0].planned.has_value());
  EXPECT_FALSE(places[1].planned.has_value());
  EXPECT_EQ(places[1].why, "its first bytes hold another --progress place's");
  EXPECT_TRUE(places[2].planned.has_value());
  EXPECT_TRUE(places[3].planned.has_value());
}

}  // namespace
}  // namespace cprof::causal
