// Profiling target for the rust captures: generic functions, trait
// objects, closures, methods on generic structs and a thread pool, so perf
// prints Rust names such as `rustprog::Grid<T>::step` and
// `<rustprog::Fnv as rustprog::Digest>::digest`, in legacy (`_ZN…17h…E`)
// and v0 (`_R…`) manglings. Build: cargo build --release, with
// RUSTFLAGS="-C force-frame-pointers=yes [-C symbol-mangling-version=v0]".
// Usage: rustprog [seconds]
use std::collections::BTreeMap;
use std::hint::black_box;
use std::thread;
use std::time::{Duration, Instant};

trait Digest {
    fn digest(&self, data: &[u8]) -> u64;
}

struct Fnv;
struct Mix(u64);

impl Digest for Fnv {
    #[inline(never)]
    fn digest(&self, data: &[u8]) -> u64 {
        let mut h: u64 = 0xcbf29ce484222325;
        for _ in 0..64 {
            for b in data {
                h ^= *b as u64;
                h = h.wrapping_mul(0x100000001b3);
            }
        }
        h
    }
}

impl Digest for Mix {
    #[inline(never)]
    fn digest(&self, data: &[u8]) -> u64 {
        let mut x = self.0;
        for _ in 0..32 {
            for b in data {
                x ^= (*b as u64).rotate_left(17);
                x ^= x << 13;
                x ^= x >> 7;
            }
        }
        x
    }
}

struct Grid<T> {
    cells: Vec<T>,
    width: usize,
}

impl<T: Copy + Default + std::ops::Add<Output = T>> Grid<T> {
    #[inline(never)]
    fn step(&mut self) {
        let w = self.width;
        let old = self.cells.clone();
        for i in w..old.len() - w {
            self.cells[i] = old[i - 1] + old[i + 1] + old[i - w] + old[i + w];
        }
    }
}

#[inline(never)]
fn apply<F: Fn(u64) -> u64>(f: F, n: u64) -> u64 {
    let mut acc = 0u64;
    for i in 0..n {
        acc = acc.wrapping_add(f(i));
    }
    acc
}

#[inline(never)]
fn hash_all(ds: &[Box<dyn Digest + Send + Sync>], data: &[u8]) -> u64 {
    ds.iter().fold(0, |a, d| a ^ d.digest(data))
}

#[inline(never)]
fn tree_work(n: u64) -> usize {
    let mut m = BTreeMap::new();
    for i in 0..n {
        m.insert(i.wrapping_mul(2654435761) % 10007, i);
    }
    m.len()
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.5);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let worker = thread::spawn(move || {
        let mut g = Grid { cells: vec![1.0f64; 4096], width: 64 };
        let mut gi = Grid { cells: vec![1u32; 4096], width: 64 };
        while Instant::now() < end {
            g.step();
            gi.step();
            black_box(tree_work(2000));
        }
        black_box(g.cells[100] as u64 + gi.cells[100] as u64)
    });
    let ds: Vec<Box<dyn Digest + Send + Sync>> = vec![Box::new(Fnv), Box::new(Mix(7))];
    let data: Vec<u8> = (0..512u32).map(|i| (i * 31) as u8).collect();
    let mut total = 0u64;
    while Instant::now() < end {
        total ^= hash_all(&ds, &data);
        let k = total | 1;
        total ^= apply(|i| i.wrapping_mul(k).rotate_left(5), 20000);
    }
    total ^= worker.join().unwrap();
    println!("{}", total % 10);
}
