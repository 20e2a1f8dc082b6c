// The runtime's own descriptors inside a program (sampler/runtime/owned_fds.h): moved out
// of the program's way, told apart from a number the program took or the runtime reused,
// and a results writer that opens its file again when the program takes its number.
#include "sampler/runtime/owned_fds.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "format/reader.h"
#include "format/writer.h"

namespace cprof::sampler {
namespace {

int open_null() { return ::open("/dev/null", O_RDONLY | O_CLOEXEC); }
bool is_open(int fd) { return ::fcntl(fd, F_GETFD) >= 0; }

// What the interposed dup2 does when the program names an owned number.
void program_takes(int fd) {
  disown_fd(fd);
  const int other = open_null();
  ASSERT_EQ(::dup2(other, fd), fd);
  ::close(other);
}

TEST(OwnedFds, AdoptedDescriptorMovesAboveTheFloorAndKeepsCloseOnExec) {
  const int fd = open_null();
  ASSERT_GE(fd, 0);
  const OwnedFd owned = adopt_fd(fd);
  EXPECT_GE(owned.fd, owned_fd_floor());
  EXPECT_FALSE(is_open(fd)) << "the low number stays open";
  EXPECT_TRUE(owns(owned));
  EXPECT_TRUE(is_owned_fd(owned.fd));
  EXPECT_NE(::fcntl(owned.fd, F_GETFD) & FD_CLOEXEC, 0);
  close_owned(owned);
  EXPECT_FALSE(is_open(owned.fd));
  EXPECT_FALSE(is_owned_fd(owned.fd));
}

TEST(OwnedFds, NumberTheProgramTookIsLeftOpen) {
  const OwnedFd owned = adopt_fd(open_null());
  ASSERT_TRUE(owns(owned));
  program_takes(owned.fd);
  EXPECT_FALSE(owns(owned));
  close_owned(owned);
  EXPECT_TRUE(is_open(owned.fd)) << "closed the program's descriptor";
  ::close(owned.fd);
}

TEST(OwnedFds, TicketTellsTheOriginalFromADescriptorReopenedAtItsNumber) {
  const OwnedFd first = adopt_fd(open_null());
  program_takes(first.fd);
  ::close(first.fd);  // the program closes it; the runtime's next descriptor gets the number
  const OwnedFd second = adopt_fd(open_null());
  ASSERT_EQ(second.fd, first.fd);
  EXPECT_FALSE(owns(first));
  EXPECT_TRUE(owns(second));
  close_owned(first);  // the stale holder closes nothing
  EXPECT_TRUE(is_open(second.fd));
  close_owned(second);
}

TEST(OwnedFds, NextOwnedFdStepsThroughOwnedNumbersOnly) {
  const OwnedFd a = adopt_fd(open_null());
  const OwnedFd b = adopt_fd(open_null());
  ASSERT_LT(a.fd, b.fd);
  EXPECT_EQ(next_owned_fd(0, ~0U), a.fd);
  EXPECT_EQ(next_owned_fd(static_cast<unsigned>(a.fd) + 1, ~0U), b.fd);
  EXPECT_EQ(next_owned_fd(static_cast<unsigned>(a.fd) + 1, static_cast<unsigned>(b.fd) - 1), -1);
  close_owned(a);
  EXPECT_EQ(next_owned_fd(0, ~0U), b.fd);
  close_owned(b);
  EXPECT_EQ(next_owned_fd(0, ~0U), -1);
}

TEST(OwnedFds, FailedDupLeavesTheOwnershipAsItWas) {
  const OwnedFd owned = adopt_fd(open_null());
  const uint32_t ticket = disown_fd(owned.fd);
  EXPECT_FALSE(owns(owned));
  reown_fd(owned.fd, ticket);
  EXPECT_TRUE(owns(owned));
  close_owned(owned);
}

TEST(OwnedFds, WriterOpensItsFileAgainWhenTheProgramTakesItsNumber) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("owned-writer." + std::to_string(getpid()) + ".cprof");
  {
    format::ResultsWriter writer(owned_descriptor_keeper());
    ASSERT_EQ(writer.open(path), "");
    const int fd = next_owned_fd(0, ~0U);
    ASSERT_GE(fd, owned_fd_floor());
    writer.add(format::MessageRecord{1, format::MessageLevel::info, "before"});
    ASSERT_TRUE(writer.flush());
    program_takes(fd);
    writer.add(format::MessageRecord{2, format::MessageLevel::info, "after"});
    ASSERT_TRUE(writer.flush());
    EXPECT_TRUE(is_open(fd));  // the program's /dev/null, untouched
    writer.close();
    EXPECT_TRUE(is_open(fd));
    ::close(fd);
  }
  std::vector<std::string> texts;
  const auto summary = format::read_results_file(path, [&](format::Record&& r) {
    if (const auto* m = std::get_if<format::MessageRecord>(&r)) texts.push_back(m->text);
  });
  std::filesystem::remove(path);
  EXPECT_TRUE(summary.issues.empty());
  EXPECT_EQ(texts, (std::vector<std::string>{"before", "after"}));
}

}  // namespace
}  // namespace cprof::sampler
