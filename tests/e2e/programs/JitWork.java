// A Java program for tests/e2e/java_e2e_test.cpp: its hot code is compiled by the JVM at
// run time (anonymous memory, named only through a perf map), and the JVM relies on its
// own SIGSEGV handler, which the profiler must leave working: a null check compiled as a
// faulting load turns into a NullPointerException only through that handler.
//
//   java JitWork ROUNDS   threads "alpha" (two units a round) and "beta" (one unit), then
//                         a caught NullPointerException from compiled code; prints a
//                         checksum and exits with status 4
public class JitWork {
  static final int UNIT = 200_000;

  static long work(int units, long seed) {
    long s = seed;
    for (int i = 0; i < units * UNIT; i++) s += (i * 31L) ^ (s >>> 3);
    return s;
  }

  static int length(int[] a) { return a.length; }

  // Warm up length() until the JIT compiles it with an implicit null check, then pass null.
  static int implicitNullCheck() {
    int[] array = new int[3];
    long sum = 0;
    for (int i = 0; i < 2_000_000; i++) sum += length(array);
    try {
      return length(sum > 0 ? null : array);
    } catch (NullPointerException e) {
      return -1;
    }
  }

  public static void main(String[] args) throws InterruptedException {
    final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    final long[] sums = new long[2];
    Thread alpha = new Thread(() -> { for (int r = 0; r < rounds; r++) sums[0] += work(2, r); }, "alpha");
    Thread beta = new Thread(() -> { for (int r = 0; r < rounds; r++) sums[1] += work(1, r); }, "beta");
    alpha.start();
    beta.start();
    alpha.join();
    beta.join();
    System.out.println("checksum " + Long.toHexString((sums[0] ^ sums[1]) & 0xffff)
                       + ", null check: " + implicitNullCheck());
    System.exit(4);
  }
}
