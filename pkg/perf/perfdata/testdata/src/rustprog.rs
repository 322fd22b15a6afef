// Profiling target for the rust capture: generic functions, trait objects,
// closures and nested modules, so perf prints Rust names such as
// rustprog::shapes::area_sum and <rustprog::shapes::Circle as
// rustprog::shapes::Shape>::area. Build (see ../capture):
//   rustc -C opt-level=1 -C force-frame-pointers=yes -g -o rustprog rustprog.rs
// Usage: rustprog [seconds]
use std::collections::BTreeMap;
use std::env;
use std::hint::black_box;
use std::time::{Duration, Instant};

mod shapes {
    pub trait Shape {
        fn area(&self) -> f64;
    }

    pub struct Circle {
        pub r: f64,
    }

    pub struct Rect {
        pub w: f64,
        pub h: f64,
    }

    impl Shape for Circle {
        #[inline(never)]
        fn area(&self) -> f64 {
            let mut a = 0.0;
            for i in 0..200 {
                a += (self.r + i as f64).sqrt();
            }
            a
        }
    }

    impl Shape for Rect {
        #[inline(never)]
        fn area(&self) -> f64 {
            let mut a = 0.0;
            for i in 0..200 {
                a += (self.w * self.h + i as f64).ln();
            }
            a
        }
    }

    #[inline(never)]
    pub fn area_sum(all: &[Box<dyn Shape>]) -> f64 {
        all.iter().map(|s| s.area()).sum()
    }
}

mod stats {
    use std::collections::BTreeMap;

    pub struct Histogram<K: Ord> {
        pub bins: BTreeMap<K, u64>,
    }

    impl<K: Ord + Copy> Histogram<K> {
        #[inline(never)]
        pub fn add_all<I: Iterator<Item = K>>(&mut self, it: I) {
            for k in it {
                *self.bins.entry(k).or_insert(0) += 1;
            }
        }
    }
}

#[inline(never)]
fn collatz<F: Fn(u64) -> u64>(start: u64, step: F) -> u64 {
    let mut n = start;
    let mut c = 0;
    while n != 1 {
        n = step(n);
        c += 1;
    }
    c
}

fn main() {
    let secs: f64 = env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let all: Vec<Box<dyn shapes::Shape>> = vec![
        Box::new(shapes::Circle { r: 2.0 }),
        Box::new(shapes::Rect { w: 3.0, h: 4.0 }),
    ];
    let mut h = stats::Histogram::<u64> { bins: BTreeMap::new() };
    let mut sink = 0.0;
    let mut seed = 27u64;
    while Instant::now() < end {
        sink += shapes::area_sum(black_box(&all));
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let steps = collatz(seed % 100000 + 1, |n| if n % 2 == 0 { n / 2 } else { 3 * n + 1 });
        h.add_all((0..500u64).map(|i| (i * steps) % 97));
    }
    println!("{} {}", sink, h.bins.len());
}
