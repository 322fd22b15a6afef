// Profiling target for the --call-graph dwarf captures (pkg/perf/perfdata):
// C++ exceptions thrown and caught in a loop (the unwinder walks through
// libstdc++ and libgcc_s while they unwind), std::function, std::sort.
// Usage: cppexc [seconds]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace work {

struct Failure : std::runtime_error {
	explicit Failure(int n) : std::runtime_error("failure " + std::to_string(n)) {}
};

__attribute__((noinline)) int thrower(int n)
{
	if (n % 3 == 0)
		throw Failure(n);
	return n * 2;
}

__attribute__((noinline)) int middle(int n, const std::function<int(int)> &f)
{
	std::vector<int> v(64);
	for (int i = 0; i < 64; i++)
		v[i] = f(n + i) ^ i;
	return v[n % 64];
}

__attribute__((noinline)) long catcher(int rounds)
{
	long sum = 0;
	for (int i = 0; i < rounds; i++) {
		try {
			sum += middle(i, [](int x) { return x % 97 == 0 ? thrower(x) : x + 1; });
		} catch (const Failure &e) {
			sum += e.what()[0];
		}
	}
	return sum;
}

template <typename T> __attribute__((noinline)) T sorted_sum(std::vector<T> v)
{
	std::sort(v.begin(), v.end(), [](T a, T b) { return (a * 31) % 1009 < (b * 31) % 1009; });
	T s = 0;
	for (auto x : v)
		s += x;
	return s;
}

} // namespace work

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::atof(argv[1]) : 1;
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
	long total = 0;
	std::vector<long> v(4096);
	for (size_t i = 0; i < v.size(); i++)
		v[i] = long(i * 7919 % 4096);
	while (std::chrono::steady_clock::now() < end) {
		total += work::catcher(2000);
		total += work::sorted_sum(v);
	}
	std::cout << total << "\n";
}
