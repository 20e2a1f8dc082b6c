// A small multi-threaded program for the quick start: two worker threads spend their CPU
// time in three functions in about the proportion multiply : hash : sort = 55 : 30 : 15
// (sort's share lies mostly in std::sort's helpers, so look at total time for it; the
// split moves a few points with the compiler and the CPU), and the main thread waits. Run
// it under sample-run and the profile shows that split.
//
//   matrix-pipeline [rounds [hash-cut]]
//
// The right causal answer is known: each round of a worker (the line that calls
// sort_numbers is visited once per round) spends about 30% of its time in hash_bytes, and
// the workers never wait for each other, so making hash_bytes 50% faster makes every
// round about 30% * 50% = 15% shorter. `causal-run --function hash_bytes --fixed-speedup
// 50 --progress matrix_pipeline.cpp:LINE` predicts that without touching the code;
// hash-cut (0 to 0.9, default 0) is the real change that checks it: it removes that
// fraction of hash_bytes' work. setup.sh runs both side by side.

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

// The share of hash_bytes' work that is left (1 - hash-cut).
int g_hash_iterations = 90000;

__attribute__((noinline)) uint64_t hash_bytes(int units) {
  uint64_t h = 1469598103934665603ull;
  for (int u = 0; u < units; ++u) {
    for (int i = 0; i < g_hash_iterations; ++i) {
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
    sum += multiply_matrices(15);
    sum += hash_bytes(5);
    sum += sort_numbers(1);
  }
  *out = sum;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 160;
  const double hash_cut = argc > 2 ? std::atof(argv[2]) : 0.0;
  if (rounds < 1 || !(hash_cut >= 0.0 && hash_cut <= 0.9)) {
    std::fprintf(stderr, "usage: matrix-pipeline [rounds (1 or more) [hash-cut (0 to 0.9)]]\n");
    return 2;
  }
  g_hash_iterations = static_cast<int>(90000 * (1.0 - hash_cut) + 0.5);
  uint64_t results[2] = {};
  std::thread t1(worker, rounds, &results[0]);
  std::thread t2(worker, rounds, &results[1]);
  t1.join();
  t2.join();
  std::printf("checksum %llu\n", static_cast<unsigned long long>(results[0] + results[1]));
  return 0;
}
