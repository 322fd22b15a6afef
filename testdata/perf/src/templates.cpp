// Profiling target for the cpp-templates, dwarf, mixed-events and
// nocallgraph captures: templates, lambdas, std::function and a function
// in an anonymous namespace, so perf prints C++ names with (), <> and
// "(anonymous namespace)". Build: g++ -O1 -g -fno-omit-frame-pointer.
// Usage: templates [seconds]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

__attribute__((noinline)) unsigned long hidden_mix(unsigned long x) {
    for (int i = 0; i < 200; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

}  // namespace

namespace geo {

template <typename T, int N>
struct Matrix {
    T v[N][N];

    __attribute__((noinline)) Matrix<T, N> multiply(const Matrix<T, N>& o) const {
        Matrix<T, N> r{};
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                T s = 0;
                for (int k = 0; k < N; k++) s += v[i][k] * o.v[k][j];
                r.v[i][j] = s;
            }
        return r;
    }
};

template <typename Container>
__attribute__((noinline)) typename Container::value_type sum_all(const Container& c) {
    typename Container::value_type s{};
    for (const auto& e : c) s += e;
    return s;
}

}  // namespace geo

// Touches fresh memory so the page-faults event has something to count.
__attribute__((noinline)) std::size_t allocate_pages(std::size_t mb) {
    std::vector<std::vector<char>> blocks;
    std::size_t total = 0;
    for (std::size_t i = 0; i < mb; i++) {
        blocks.emplace_back(1 << 20, static_cast<char>(i));
        total += blocks.back()[4096];
    }
    return total;
}

__attribute__((noinline)) int apply(const std::function<int(int, int)>& f, int n) {
    int acc = 0;
    for (int i = 0; i < n; i++) acc = f(acc, i);
    return acc;
}

int main(int argc, char** argv) {
    double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
    auto start = std::chrono::steady_clock::now();
    geo::Matrix<double, 48> a{}, b{};
    for (int i = 0; i < 48; i++)
        for (int j = 0; j < 48; j++) {
            a.v[i][j] = i + j;
            b.v[i][j] = i - j;
        }
    std::vector<long> longs(20000, 3);
    std::map<std::string, int> names{{"x", 1}, {"y", 2}};
    unsigned long h = 88172645463325252UL;
    long sink = 0;
    auto lambda = [&h](int acc, int i) -> int {
        h = hidden_mix(h + static_cast<unsigned long>(i));
        return acc + static_cast<int>(h & 7);
    };
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
        auto c = a.multiply(b);
        sink += static_cast<long>(c.v[1][2]);
        sink += geo::sum_all(longs);
        sink += apply(lambda, 2000);
        sink += apply([](int acc, int i) { return acc ^ (i * 31); }, 200000);
        sink += static_cast<long>(allocate_pages(8));
        sink += names.size();
    }
    std::printf("%ld %lu\n", sink, h);
    return 0;
}
