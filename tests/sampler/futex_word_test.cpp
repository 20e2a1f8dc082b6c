// FutexWord (sampler/runtime/futex_word.h): the writer's wake-up and the dying hand-off.
#include "sampler/runtime/futex_word.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace cprof::sampler {
namespace {

using std::chrono::steady_clock;

TEST(FutexWord, WaitReturnsAtOnceWhenTheWordHasChanged) {
  FutexWord word;
  word.store(3);
  const auto start = steady_clock::now();
  word.wait_while(2, 10'000'000'000ull);  // 10 s, were it to sleep
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(FutexWord, BumpWakesASleeperLongBeforeItsTimeout) {
  FutexWord word;
  const uint32_t seen = word.load();
  std::thread waker([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    word.bump_and_wake();
  });
  const auto start = steady_clock::now();
  while (word.load() == seen) word.wait_while(seen, 10'000'000'000ull);
  EXPECT_LT(steady_clock::now() - start, std::chrono::seconds(5));
  waker.join();
  EXPECT_EQ(word.load(), seen + 1);
}

TEST(FutexWord, CompareExchangeTakesTheWordOnce) {
  FutexWord word;
  uint32_t expected = 0;
  EXPECT_TRUE(word.compare_exchange(expected, 1));
  expected = 0;
  EXPECT_FALSE(word.compare_exchange(expected, 1));
  EXPECT_EQ(expected, 1u);
}

// Unchanged and not woken, the wait sleeps its whole timeout (the writer's drain tick).
TEST(FutexWord, WaitWithoutAWakeSleepsUntilItsTimeout) {
  FutexWord word;
  const auto start = steady_clock::now();
  word.wait_while(word.load(), 20'000'000);  // 20 ms
  EXPECT_GE(steady_clock::now() - start, std::chrono::milliseconds(19));
}

}  // namespace
}  // namespace cprof::sampler
