// A small multi-threaded program for the quick start: two worker threads spend their CPU
// time in three functions in about the proportion multiply : hash : sort = 3 : 2 : 1 (sort's
// share lies mostly in std::sort's helpers, so look at total time for it), and
// the main thread waits. Run it under sample-run and the profile shows that split.
//
//   matrix-pipeline [rounds]

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

// Each function does `units` of roughly equal-cost work so the split is known.
__attribute__((noinline)) uint64_t multiply_matrices(int units) {
  constexpr int n = 48;
  static thread_local double a[n][n], b[n][n], c[n][n];
  uint64_t checksum = 0;
  for (int u = 0; u < units; ++u) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        a[i][j] = i + j + u;
        b[i][j] = i - j;
      }
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int k = 0; k < n; ++k) sum += a[i][k] * b[k][j];
        c[i][j] = sum;
      }
    checksum += static_cast<uint64_t>(c[u % n][(u * 7) % n]);
  }
  return checksum;
}

__attribute__((noinline)) uint64_t hash_bytes(int units) {
  uint64_t h = 1469598103934665603ull;
  for (int u = 0; u < units; ++u) {
    for (int i = 0; i < 75000; ++i) {
      h ^= static_cast<uint64_t>(i + u);
      h *= 1099511628211ull;
    }
  }
  return h;
}

__attribute__((noinline)) uint64_t sort_numbers(int units) {
  uint64_t checksum = 0;
  std::vector<uint32_t> v(6000);
  for (int u = 0; u < units; ++u) {
    uint32_t x = 12345u + static_cast<uint32_t>(u);
    for (auto& e : v) e = x = x * 1664525u + 1013904223u;
    std::sort(v.begin(), v.end());
    checksum += v[v.size() / 2];
  }
  return checksum;
}

void worker(int rounds, uint64_t* out) {
  uint64_t sum = 0;
  for (int r = 0; r < rounds; ++r) {
    sum += multiply_matrices(72);
    sum += hash_bytes(20);
    sum += sort_numbers(4);
  }
  *out = sum;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 40;
  uint64_t results[2] = {};
  std::thread t1(worker, rounds, &results[0]);
  std::thread t2(worker, rounds, &results[1]);
  t1.join();
  t2.join();
  std::printf("checksum %llu\n", static_cast<unsigned long long>(results[0] + results[1]));
  return 0;
}
