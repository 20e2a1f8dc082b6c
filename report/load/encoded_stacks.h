#pragma once
// The loader's front door to StackTable for samples read as format::SampleView: a table
// from a stack's encoded bytes (as in the file) to its StackTable id. A stack seen before
// costs one hash over its bytes and one compare; only a new one is decoded and interned.
// Equal frames always get one id: a stack encoded two ways (another writer's non-minimal
// varints) decodes to frames StackTable already knows.

#include <cstdint>
#include <span>
#include <vector>

#include "format/sample_view.h"
#include "report/load/stack_table.h"

namespace cprof::report {

class EncodedStacks {
 public:
  explicit EncodedStacks(StackTable& stacks) : stacks_(stacks) {}

  // The StackTable id of the view's frames (view.frame_count > 0).
  uint32_t intern(const format::SampleView& view);

 private:
  void grow();

  StackTable& stacks_;
  std::vector<uint8_t> bytes_;      // every known encoding, back to back
  std::vector<uint64_t> offsets_{0};  // encoding k is bytes_[offsets_[k], offsets_[k+1])
  std::vector<uint64_t> hashes_;    // per encoding
  std::vector<uint32_t> ids_;       // per encoding: its StackTable id
  std::vector<uint32_t> slots_ = std::vector<uint32_t>(1024, 0);  // encoding + 1; 0 = empty
  std::vector<uint64_t> scratch_;   // decoded frames of a new stack
};

}  // namespace cprof::report
