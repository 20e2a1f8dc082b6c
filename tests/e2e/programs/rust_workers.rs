// A Rust program of known structure for tests/e2e/rust_e2e_test.cpp: rustc's own code
// generation and DWARF, its legacy-mangled names, std's named threads, a panic that
// unwinds through the sampled frames, and an exit status of its own.
//
//   rust_workers threads ROUNDS  threads "alpha" (two units a round) and "beta" (one unit),
//                                then a panic on a thread "panicker" that join() catches;
//                                prints a checksum and exits with status 3
//   rust_workers serial ROUNDS   one loop: line A does two units a round, line B one
use std::thread;

const UNIT: u64 = 50_000;

// A volatile read keeps the loop (std::hint::black_box would, from Rust 1.66 on only;
// Debian 12's rustc is 1.63).
fn opaque(x: u64) -> u64 {
    unsafe { std::ptr::read_volatile(&x) }
}

#[inline(never)]
fn spin(n: u64) -> u64 {
    let mut x: u64 = 0;
    for i in 0..n {
        x = opaque(x.wrapping_add(i.wrapping_mul(i)));
    }
    x
}

#[inline(never)]
fn alpha_work(rounds: u64) -> u64 {
    (0..rounds).fold(0, |sum: u64, _| sum.wrapping_add(spin(2 * UNIT)))
}

#[inline(never)]
fn beta_work(rounds: u64) -> u64 {
    (0..rounds).fold(0, |sum: u64, _| sum.wrapping_add(spin(UNIT)))
}

#[inline(never)]
fn panic_on_purpose(rounds: u64) -> u64 {
    if opaque(rounds) > 0 {
        panic!("on purpose, after {} rounds", spin(rounds));
    }
    0
}

fn named(name: &str, rounds: u64, work: fn(u64) -> u64) -> thread::JoinHandle<u64> {
    thread::Builder::new()
        .name(name.to_string())
        .spawn(move || work(rounds))
        .expect("spawn")
}

fn threads(rounds: u64) -> ! {
    let alpha = named("alpha", rounds, alpha_work);
    let beta = named("beta", rounds, beta_work);
    let sum = alpha.join().unwrap().wrapping_add(beta.join().unwrap());
    let caught = named("panicker", rounds, panic_on_purpose).join().is_err();
    println!("checksum {:x}, panic caught: {}", sum & 0xffff, caught);
    std::process::exit(3);
}

fn serial(rounds: u64) {
    let mut sum: u64 = 0;
    for _ in 0..rounds {
        sum = sum.wrapping_add(spin(2 * UNIT)); // LINE_A
        sum = sum.wrapping_add(spin(UNIT)); // LINE_B
    }
    println!("checksum {:x}", sum & 0xffff);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    match args.get(1).map(String::as_str) {
        Some("threads") => threads(rounds),
        Some("serial") => serial(rounds),
        _ => {
            eprintln!("usage: rust_workers threads|serial [ROUNDS]");
            std::process::exit(2);
        }
    }
}
