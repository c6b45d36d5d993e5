// A fixed CPU-bound loop that times itself: `cpu_loop ITERATIONS` prints
// "host=<name> wall=<seconds> cpu=<seconds> result=<checksum>". The testbed's speed test
// runs it on nodes of different speed factors and compares the wall times.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace {
double seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cpu_loop ITERATIONS\n");
    return 2;
  }
  const long long iterations = std::atoll(argv[1]);
  const double wall0 = seconds(CLOCK_MONOTONIC);
  const double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  // A dependent integer recurrence: no memory traffic, cannot be vectorised away.
  unsigned long long x = 88172645463325252ULL;
  for (long long i = 0; i < iterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  const double wall = seconds(CLOCK_MONOTONIC) - wall0;
  const double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::printf("host=%s wall=%.6f cpu=%.6f result=%llu\n", host, wall, cpu, x);
  return 0;
}
