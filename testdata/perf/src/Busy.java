// Profiling target for the java capture (JIT frames resolved through
// /tmp/perf-PID.map written by -XX:+DumpPerfMapAtExit).
// Usage: java Busy [seconds]
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Busy {
    static final class Counter {
        private final Map<String, Integer> counts = new HashMap<>();

        void add(String word) {
            counts.merge(word, 1, Integer::sum);
        }

        int size() {
            return counts.size();
        }
    }

    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static String makeWord(int i) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < 6; k++) {
            sb.append((char) ('a' + ((i >> (k * 2)) & 15)));
        }
        return sb.toString();
    }

    static int countWords(int n) {
        Counter c = new Counter();
        for (int i = 0; i < n; i++) {
            c.add(makeWord(i * 7919));
        }
        return c.size();
    }

    static long sortList(int n) {
        List<Integer> list = new ArrayList<>();
        long seed = 42;
        for (int i = 0; i < n; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            list.add((int) (seed >>> 40));
        }
        list.sort(null);
        return list.get(n / 2);
    }

    public static void main(String[] args) {
        double secs = args.length > 0 ? Double.parseDouble(args[0]) : 3.0;
        long end = System.nanoTime() + (long) (secs * 1e9);
        long sink = 0;
        while (System.nanoTime() < end) {
            sink += fib(24);
            sink += countWords(20000);
            sink += sortList(20000);
        }
        System.out.println(sink);
    }
}
